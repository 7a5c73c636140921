// Events waiting to be sent, one lane per outcome: a lane is either ready (its events may join the next
// batch), busy (a request carrying its events is in flight) or held back (waiting out a retry delay). Only
// ready lanes give events, so no two requests in flight carry the same outcome, and a lane's failed events
// go back to its front, ahead of the ones tracked after them.

/** One tracked event on its way to the service. */
export interface PendingEvent {
  /** The event as JSON text, serialised once and resent as is. */
  json: string;
  /** UTF-8 length of `json`. */
  bytes: number;
  lane: Lane;
  /** Sends so far. */
  attempts: number;
  /** Order of `track` calls: `flush` waits for every event below its mark. */
  seq: number;
  traceparent: string | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class Lane {
  /** Queued events from `head` on; the array is compacted as the head moves. */
  events: PendingEvent[] = [];
  head = 0;
  busy = false;
  held: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly key: string) {}

  get length(): number {
    return this.events.length - this.head;
  }
}

/** Outcome lanes, and the ready ones in the order they became ready (a fair, roughly `track`-ordered pick). */
export class OrderingQueue {
  private readonly lanes = new Map<string, Lane>();
  private readonly ready = new Set<Lane>();
  /** Events in ready lanes: what the next batches can take now. */
  readyEvents = 0;

  constructor(private readonly onReady: () => void) {}

  lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = new Lane(key);
      this.lanes.set(key, lane);
    }
    return lane;
  }

  push(event: PendingEvent): void {
    const lane = event.lane;
    lane.events.push(event);
    if (this.ready.has(lane)) this.readyEvents++;
    else this.markReady(lane);
  }

  /**
   * Takes events from ready lanes, lane by lane, up to `maxEvents` and `maxBytes` of JSON (each event also
   * costs one separator byte); every lane it takes from is busy until `settle`.
   */
  take(maxEvents: number, maxBytes: number): PendingEvent[] {
    const batch: PendingEvent[] = [];
    let bytes = 0;
    for (const lane of this.ready) {
      let taken = 0;
      while (lane.head < lane.events.length && batch.length < maxEvents) {
        const event = lane.events[lane.head]!;
        if (batch.length > 0 && bytes + event.bytes + 1 > maxBytes) break;
        batch.push(event);
        bytes += event.bytes + 1;
        lane.head++;
        taken++;
      }
      if (taken === 0) break;
      this.readyEvents -= lane.length + taken;
      this.ready.delete(lane);
      lane.busy = true;
      this.compact(lane);
      if (batch.length >= maxEvents || lane.length > 0) break;
    }
    return batch;
  }

  /**
   * A request carrying `lane`'s events came back. `retry` (in send order) goes back to the front of the lane,
   * which is then held back for `delayMs` before it may be sent again.
   */
  settle(lane: Lane, retry: PendingEvent[], delayMs: number): void {
    lane.busy = false;
    if (retry.length > 0) {
      lane.events = retry.concat(lane.events.slice(lane.head));
      lane.head = 0;
    }
    if (retry.length > 0 && delayMs > 0) {
      lane.held = setTimeout(() => {
        lane.held = undefined;
        this.markReady(lane);
        this.onReady();
      }, delayMs);
    } else {
      this.markReady(lane);
    }
  }

  private markReady(lane: Lane): void {
    if (lane.busy || lane.held !== undefined) return;
    if (lane.length === 0) {
      // Nothing queued and nothing in flight: forget the outcome, so a long-lived client's memory follows
      // its backlog, not every outcome it ever saw.
      this.lanes.delete(lane.key);
      return;
    }
    this.ready.add(lane);
    this.readyEvents += lane.length;
  }

  private compact(lane: Lane): void {
    if (lane.head === lane.events.length) {
      lane.events = [];
      lane.head = 0;
    } else if (lane.head > 1024 && lane.head * 2 > lane.events.length) {
      lane.events = lane.events.slice(lane.head);
      lane.head = 0;
    }
  }
}
