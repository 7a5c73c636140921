// Events waiting to be sent, one lane per outcome: a lane is either ready (its events may join the next
// batch), busy (a request carrying its events is in flight) or held back (waiting out a retry delay). Only
// ready lanes give events, so no two requests in flight carry the same outcome, and a lane's failed events
// go back to its front, ahead of the ones tracked after them.

/** One tracked event on its way to the service. */
export interface PendingEvent {
  /** The caller's event until it is admitted to the buffer and serialised; then undefined. */
  event: unknown;
  /** The event as JSON text, serialised once at admission and resent as is. */
  json: string;
  /** The key minted for it at admission (idempotency "auto", none of its own): added to `json` on each send. */
  idempotencyKey: string | undefined;
  /** UTF-8 length of what is sent (`json` and the minted key's field), or an upper bound of it. */
  bytes: number;
  /** Its outcome's lane, from admission on (NOT_ADMITTED before). */
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

/** Lanes kept before the first sweep of idle ones. */
const MIN_SWEEP_AT = 4096;

/** The lane of an event still waiting for room in the buffer: never queued on, never sent. */
export const NOT_ADMITTED = new Lane("");

/** Outcome lanes, and the ready ones in the order they became ready (a fair, roughly `track`-ordered pick). */
export class OrderingQueue {
  private readonly lanes = new Map<string, Lane>();
  private readonly ready = new Set<Lane>();
  /** Events in ready lanes: what the next batches can take now. */
  readyEvents = 0;
  /** Lane count at which the next new lane first sweeps the idle ones. */
  private sweepAt = MIN_SWEEP_AT;

  constructor(private readonly onReady: () => void) {}

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
    if (lane.busy || lane.held !== undefined || lane.length === 0) return;
    this.ready.add(lane);
    this.readyEvents += lane.length;
  }

  lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      if (this.lanes.size >= this.sweepAt) this.sweep();
      lane = new Lane(key);
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /**
   * Forgets idle lanes (nothing queued, in flight or held back), so a long-lived client's memory follows its
   * backlog, not every outcome it ever saw. Idle lanes stay until the map has doubled: an agent's next
   * event then finds its lane again instead of allocating one per event.
   */
  private sweep(): void {
    for (const [key, lane] of this.lanes) if (lane.length === 0 && !lane.busy && lane.held === undefined) this.lanes.delete(key);
    this.sweepAt = Math.max(MIN_SWEEP_AT, this.lanes.size * 2);
  }

  private compact(lane: Lane): void {
    if (lane.head === lane.events.length) {
      // Reused, not replaced: a lane's array keeps its capacity from one batch to the next.
      lane.events.length = 0;
      lane.head = 0;
    } else if (lane.head > 1024 && lane.head * 2 > lane.events.length) {
      lane.events = lane.events.slice(lane.head);
      lane.head = 0;
    }
  }
}
