// Whether Redis answers right now, known within a second: a connection that is not ready (killed,
// restarting) is down at once, and one whose PING has gone unanswered for `stallMs` (a paused or wedged
// server: commands are sent and never answered) is down too. Give it a connection of its own, so its
// PINGs never wait behind the process's other commands. Requests use it to fail fast with a 503
// instead of waiting out the 5 s command timeout.
import { Periodic } from "../runtime/periodic.js";
import { masters, type RedisClient } from "./client.js";

export interface LivenessOptions {
  /** How often a PING goes to every master. @default 200 */
  intervalMs?: number;
  /** A PING unanswered this long, or failed this recently, means Redis is down. @default 800 */
  stallMs?: number;
}

export class RedisLiveness {
  private readonly intervalMs: number;
  private readonly stallMs: number;
  /** The PING awaiting its answer, if any: its number, and when its stall clock started. */
  private outstanding: { ping: number; since: number } | undefined;
  private pings = 0;
  private failedAt = Number.NEGATIVE_INFINITY;
  private lastTickAt = Date.now();
  private readonly listeners = new Set<() => void>();
  private readonly ticks: Periodic;

  constructor(
    private readonly client: RedisClient,
    options: LivenessOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 200;
    this.stallMs = options.stallMs ?? 800;
    this.ticks = new Periodic(() => this.tick(), { intervalMs: this.intervalMs, unref: true });
    this.ticks.start();
  }

  /** True while Redis is not known to answer. */
  get down(): boolean {
    return this.downAt(Date.now());
  }

  /** Calls `listener` once, the first time Redis is found down from now on; returns a canceller. */
  onDown(listener: () => void): () => void {
    const once = (): void => {
      this.listeners.delete(once);
      listener();
    };
    this.listeners.add(once);
    return () => this.listeners.delete(once);
  }

  stop(): void {
    // A tick is synchronous: nothing is left in flight to wait for.
    void this.ticks.stop();
    this.listeners.clear();
  }

  private tick(): void {
    const now = Date.now();
    // A late tick means this process was busy (a long GC, a blocked loop), and the PING's answer may be
    // waiting unread behind this very timer: that says nothing about Redis, so its clock starts again.
    // The PING stays the same one: its answer, read next, must still count (matching it by its send time,
    // changed here, left it unanswered for good, and the process answering 503 until restarted).
    if (now - this.lastTickAt > 2 * this.intervalMs && this.outstanding !== undefined) this.outstanding.since = now;
    this.lastTickAt = now;
    if (this.outstanding === undefined && this.client.status === "ready") {
      const ping = ++this.pings;
      this.outstanding = { ping, since: now };
      const answered = (): void => {
        if (this.outstanding?.ping === ping) this.outstanding = undefined;
      };
      // Every master: on a cluster a stalled node is down for the keys it holds.
      Promise.all(masters(this.client).map((node) => node.ping())).then(answered, () => {
        answered();
        this.failedAt = Date.now();
      });
    }
    // Judged as of the tick's start: time this tick itself spent (sending) is this process's, not Redis's.
    if (this.downAt(now)) for (const listener of [...this.listeners]) listener();
  }

  private downAt(now: number): boolean {
    if (this.client.status !== "ready") return true;
    if (now - this.failedAt < this.stallMs) return true;
    return this.outstanding !== undefined && now - this.outstanding.since > this.stallMs;
  }
}
