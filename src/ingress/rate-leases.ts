// Tokens an ingress process holds ahead from accounts' shared buckets, so that an account sending within its
// rate is granted without a Redis round trip per request: a request waits on Redis once (its enqueue) instead
// of twice, and each wait is one a Redis busy with another account's work stretches. Each lease is tokens the
// shared bucket already gave this process, so the rate across every ingress process stays the bucket's.

/** An account's lease in this process. */
interface Lease {
  tokens: number;
  /** When the tokens lapse (performance.now()), unused. */
  expiresAt: number;
  /** A top-up of this lease is on its way to Redis: no second one is asked for. */
  topping: boolean;
}

/** Leases beyond this many are swept of the lapsed ones. */
const SWEEP_SIZE = 1024;

export class RateLeases {
  private readonly byAccount = new Map<string, Lease>();

  /**
   * `size`: the most tokens a lease holds (0 turns leasing off); `ttlMs`: how long leased tokens stay usable,
   * so an account gone quiet leaves nothing held here for long.
   */
  constructor(
    private readonly size: number,
    private readonly ttlMs: number,
  ) {}

  /** Whether the account's lease holds `events` tokens, unlapsed. */
  holds(accountId: string, events: number, now: number): boolean {
    const lease = this.byAccount.get(accountId);
    return lease !== undefined && lease.expiresAt > now && lease.tokens >= events;
  }

  /** Takes `events` from the account's lease when it holds that many, unlapsed; false leaves it as it was. */
  take(accountId: string, events: number, now: number): boolean {
    if (!this.holds(accountId, events, now)) return false;
    this.byAccount.get(accountId)!.tokens -= events;
    return true;
  }

  /** Whether the account's lease should be topped up now: under half full or past half its life, none asked yet. */
  low(accountId: string, now: number): boolean {
    const lease = this.byAccount.get(accountId);
    if (lease === undefined || lease.topping) return false;
    return lease.tokens < this.size / 2 || lease.expiresAt - now < this.ttlMs / 2;
  }

  /**
   * Tokens to ask for at the end of a call for the account (after its requests, which come first): what fills
   * its lease up to `size`, or 0 while a top-up is on its way. The call's answer goes to `granted`.
   */
  toAsk(accountId: string, now: number): number {
    if (this.size === 0) return 0;
    let lease = this.byAccount.get(accountId);
    if (lease === undefined) {
      if (this.byAccount.size >= SWEEP_SIZE) this.sweep(now);
      lease = { tokens: 0, expiresAt: 0, topping: false };
      this.byAccount.set(accountId, lease);
    }
    if (lease.topping) return 0;
    if (lease.expiresAt <= now) lease.tokens = 0;
    const ask = Math.max(0, this.size - Math.floor(lease.tokens));
    if (ask > 0) lease.topping = true;
    return ask;
  }

  /** What the bucket gave a lease asked for by `toAsk` (0 when it had nothing left or could not be asked). */
  granted(accountId: string, tokens: number, now: number): void {
    const lease = this.byAccount.get(accountId);
    if (lease === undefined) return;
    lease.topping = false;
    if (tokens <= 0) return;
    if (lease.expiresAt <= now) lease.tokens = 0;
    lease.tokens += tokens;
    lease.expiresAt = now + this.ttlMs;
  }

  private sweep(now: number): void {
    for (const [accountId, lease] of this.byAccount)
      if (!lease.topping && lease.expiresAt <= now) this.byAccount.delete(accountId);
  }
}
