// Live pages' shared work: one poller per outcome view however many pages show it, which renders once per
// change and hands the same HTML to every viewer; and the cap on how many live streams one session holds.

/** How often an outcome shown live is re-read: well inside the 2 s the page promises. */
export const LIVE_POLL_MS = 500;

/** Live streams one session may hold open on an ingress at a time; one more is answered 429. */
export const LIVE_STREAMS_PER_SESSION = 4;

type Viewer = (fragment: string) => void;

interface Channel {
  viewers: Set<Viewer>;
  /** Viewers that joined since the last poll: they get its HTML even when nothing changed. */
  joined: Set<Viewer>;
  /** What the last render was made from (JSON), and its HTML; undefined before the first read. */
  made?: { from: string; fragment: string };
  timer: NodeJS.Timeout;
  busy: boolean;
}

export interface LiveSource<T> {
  /** The data the view is made of; read once per poll for all viewers. */
  read(): Promise<T>;
  render(data: T): string;
}

export class LiveHub {
  private readonly channels = new Map<string, Channel>();
  private readonly streams = new Map<string, number>();

  /** `onRender` is told of each render (the metric of shared renders). */
  constructor(
    private readonly pollMs: number,
    private readonly onRender: () => void,
  ) {}

  /** Takes one of a session's streams; false when it holds its maximum already. */
  reserve(sessionId: string): boolean {
    const open = this.streams.get(sessionId) ?? 0;
    if (open >= LIVE_STREAMS_PER_SESSION) return false;
    this.streams.set(sessionId, open + 1);
    return true;
  }

  release(sessionId: string): void {
    const open = (this.streams.get(sessionId) ?? 1) - 1;
    if (open > 0) this.streams.set(sessionId, open);
    else this.streams.delete(sessionId);
  }

  /**
   * Sends `viewer` the view's HTML from the next poll on, then on each change, until the returned function
   * is called. Viewers of one `channel` (the same account, outcome and variant) share one source.
   */
  watch<T>(channel: string, source: LiveSource<T>, viewer: Viewer): () => void {
    let found = this.channels.get(channel);
    if (!found) {
      const created: Channel = {
        viewers: new Set(),
        joined: new Set(),
        busy: false,
        timer: setInterval(() => this.poll(created, source), this.pollMs),
      };
      this.channels.set(channel, created);
      found = created;
    }
    const shared = found;
    shared.viewers.add(viewer);
    shared.joined.add(viewer);
    return () => {
      shared.viewers.delete(viewer);
      shared.joined.delete(viewer);
      if (shared.viewers.size > 0 || this.channels.get(channel) !== shared) return;
      clearInterval(shared.timer);
      this.channels.delete(channel);
    };
  }

  private poll<T>(channel: Channel, source: LiveSource<T>): void {
    if (channel.busy) return;
    channel.busy = true;
    source
      .read()
      .then((data) => {
        const from = JSON.stringify(data) ?? "";
        const joined = [...channel.joined];
        channel.joined.clear();
        if (channel.made?.from === from) {
          for (const viewer of joined) viewer(channel.made.fragment);
          return;
        }
        if (channel.viewers.size === 0) return;
        this.onRender();
        channel.made = { from, fragment: source.render(data) };
        for (const viewer of channel.viewers) viewer(channel.made.fragment);
      })
      .catch(() => {
        // Redis briefly away: the pages keep what they show and the next poll tries again.
      })
      .finally(() => (channel.busy = false));
  }
}
