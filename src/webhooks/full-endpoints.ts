// The endpoints a shard's fan-out found at their backlog, believed for a while over fan-out passes: a pass
// starts whenever the outbox has entries again, and each would otherwise render its first page of messages
// for a receiver that is down, only for the fan-out script to skip them.
export const FULL_BELIEVED_MS = 1000;

export class FullEndpoints {
  /** By shard: active-set members found at their backlog since `since`. */
  private readonly known = new Map<number, { members: Set<string>; since: number }>();

  constructor(private readonly believedMs = FULL_BELIEVED_MS) {}

  /** The shard's set for a pass starting `now`: a fresh one once the last is `believedMs` old. */
  of(shard: number, now: number): Set<string> {
    let known = this.known.get(shard);
    if (!known || now - known.since >= this.believedMs) {
      known = { members: new Set(), since: now };
      this.known.set(shard, known);
    }
    return known.members;
  }
}
