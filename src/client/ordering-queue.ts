// Events waiting to be sent, one lane per outcome: a lane is either ready (its events may join the next
// batch), busy (a request carrying its events is in flight) or held back (waiting out a retry delay). Only
// ready lanes give events, so no two requests in flight carry the same outcome, and a lane's failed events
// go back to its front, ahead of the ones tracked after them.
//
// Lanes and the ready queue are linked lists through the events and lanes themselves: a fleet's lane mostly
// holds one event at a time, and an array per lane (or a Set of ready lanes) reallocated as it empties and
// fills was measured as the client's largest allocation per event after its JSON (about 150 bytes).

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
  /** The event queued behind it in its lane, while it is queued. */
  next: PendingEvent | undefined;
  /** Sends so far. */
  attempts: number;
  /** Order of `track` calls: `flush` waits for every event below its mark. */
  seq: number;
  traceparent: string | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class Lane {
  /** Queued events, oldest first, linked through `next`. */
  first: PendingEvent | undefined = undefined;
  last: PendingEvent | undefined = undefined;
  /** Queued events (not those in flight). */
  length = 0;
  busy = false;
  held: ReturnType<typeof setTimeout> | undefined = undefined;
  /** In the ready queue, and the lane behind it there. */
  ready = false;
  nextReady: Lane | undefined = undefined;

  constructor(readonly key: string) {}
}

/** Lanes kept before the first sweep of idle ones. */
const MIN_SWEEP_AT = 4096;

/** The lane of an event still waiting for room in the buffer: never queued on, never sent. */
export const NOT_ADMITTED = new Lane("");

/** Outcome lanes, and the ready ones in the order they became ready (a fair, roughly `track`-ordered pick). */
export class OrderingQueue {
  private readonly lanes = new Map<string, Lane>();
  private readyHead: Lane | undefined = undefined;
  private readyTail: Lane | undefined = undefined;
  /** Events in ready lanes: what the next batches can take now. */
  readyEvents = 0;
  /** Lane count at which the next new lane first sweeps the idle ones. */
  private sweepAt = MIN_SWEEP_AT;

  constructor(private readonly onReady: () => void) {}

  push(event: PendingEvent): void {
    const lane = event.lane;
    event.next = undefined;
    if (lane.last === undefined) lane.first = event;
    else lane.last.next = event;
    lane.last = event;
    lane.length++;
    if (lane.ready) this.readyEvents++;
    else this.markReady(lane);
  }

  /**
   * Takes events from ready lanes, lane by lane, up to `maxEvents` and `maxBytes` of JSON (each event also
   * costs one separator byte); every lane it takes from is busy until `settle`.
   */
  take(maxEvents: number, maxBytes: number): PendingEvent[] {
    const batch: PendingEvent[] = [];
    let bytes = 0;
    for (let lane = this.readyHead; lane !== undefined; lane = this.readyHead) {
      let taken = 0;
      let event = lane.first;
      while (event !== undefined && batch.length < maxEvents) {
        if (batch.length > 0 && bytes + event.bytes + 1 > maxBytes) break;
        batch.push(event);
        bytes += event.bytes + 1;
        event = event.next;
        taken++;
      }
      if (taken === 0) break;
      lane.first = event;
      if (event === undefined) lane.last = undefined;
      lane.length -= taken;
      this.readyEvents -= lane.length + taken;
      this.readyHead = lane.nextReady;
      if (this.readyHead === undefined) this.readyTail = undefined;
      lane.nextReady = undefined;
      lane.ready = false;
      lane.busy = true;
      if (batch.length >= maxEvents || lane.length > 0) break;
    }
    return batch;
  }

  /**
   * A request carrying `lane`'s events came back. `retry` (in send order) goes back to the front of the lane,
   * which is then held back for `delayMs` before it may be sent again. The list is not kept: it may be reused.
   */
  settle(lane: Lane, retry: readonly PendingEvent[], delayMs: number): void {
    lane.busy = false;
    if (retry.length > 0) {
      for (let i = 0; i < retry.length - 1; i++) retry[i]!.next = retry[i + 1];
      const lastRetry = retry[retry.length - 1]!;
      lastRetry.next = lane.first;
      if (lane.first === undefined) lane.last = lastRetry;
      lane.first = retry[0];
      lane.length += retry.length;
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
    if (lane.ready || lane.busy || lane.held !== undefined || lane.length === 0) return;
    lane.ready = true;
    if (this.readyTail === undefined) this.readyHead = lane;
    else this.readyTail.nextReady = lane;
    this.readyTail = lane;
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
    for (const [key, lane] of this.lanes)
      if (lane.length === 0 && !lane.busy && lane.held === undefined) this.lanes.delete(key);
    this.sweepAt = Math.max(MIN_SWEEP_AT, this.lanes.size * 2);
  }
}
