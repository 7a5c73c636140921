// The one key builder: nobody else formats a Redis key. Every key of a shard carries the tag {s<N>} so one
// Lua call's keys share a cluster slot; account-wide records carry {a:<account>}.

export class Keys {
  constructor(private readonly prefix: string) {
    if (/[{}]/.test(prefix)) throw new Error("key prefix must not contain '{' or '}'");
  }

  private shardTag(shard: number): string {
    return `${this.prefix}{s${shard}}`;
  }

  private accountTag(accountId: string): string {
    return `${this.prefix}{a:${accountId}}`;
  }

  // ---- per shard ----

  /** The shard's event stream: the queue between ingress and the shard's actor. */
  stream(shard: number): string {
    return `${this.shardTag(shard)}:stream`;
  }

  /** Idempotency keys of one outcome: hash idempotency_key -> stream entry id of the kept event. */
  idempotency(shard: number, accountId: string, outcomeKey: string): string {
    return `${this.shardTag(shard)}:idem:${accountId}:${outcomeKey}`;
  }

  /** The committed snapshot of one outcome (msgpack). */
  outcome(shard: number, accountId: string, outcomeKey: string): string {
    return `${this.shardTag(shard)}:outcome:${accountId}:${outcomeKey}`;
  }

  /** The outcome's event log (a stream of applied events). */
  eventLog(shard: number, accountId: string, outcomeKey: string): string {
    return `${this.shardTag(shard)}:log:${accountId}:${outcomeKey}`;
  }

  /** Due-time index of the shard: sorted set of outcome refs scored by the next instant time can change them. */
  due(shard: number): string {
    return `${this.shardTag(shard)}:due`;
  }

  /** Lease of the shard: the owning worker and its fencing token. */
  lease(shard: number): string {
    return `${this.shardTag(shard)}:lease`;
  }

  /** Monotonic fencing counter of the shard. */
  fence(shard: number): string {
    return `${this.shardTag(shard)}:fence`;
  }

  /**
   * The account's outcomes on this shard (sorted set by creation time); listing merges the shards. Kept per
   * shard so the actor's commit touches one slot.
   */
  outcomeIndex(shard: number, accountId: string): string {
    return `${this.shardTag(shard)}:outcomes:${accountId}`;
  }

  /** The account's dead letters on this shard (a stream); the DLQ API merges the shards. */
  deadLetters(shard: number, accountId: string): string {
    return `${this.shardTag(shard)}:dlq:${accountId}`;
  }

  // ---- per account ----

  account(accountId: string): string {
    return `${this.accountTag(accountId)}:account`;
  }

  task(accountId: string, taskKey: string): string {
    return `${this.accountTag(accountId)}:task:${taskKey}`;
  }

  tasks(accountId: string): string {
    return `${this.accountTag(accountId)}:tasks`;
  }


  // ---- global ----

  /** Hash account id -> current token generation. */
  tokenGenerations(): string {
    return `${this.prefix}token-generations`;
  }

  /** Pub/sub channel announcing a rotated token: message "<account>:<generation>". */
  tokenRotatedChannel(): string {
    return `${this.prefix}token-rotated`;
  }

  /** Sorted set of live workers scored by heartbeat expiry. */
  workers(): string {
    return `${this.prefix}workers`;
  }
}
