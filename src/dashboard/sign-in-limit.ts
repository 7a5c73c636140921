// Sign-in attempts per email and per client address in fixed windows, counted in Redis so every ingress
// node shares the budget. Checked before the password is hashed, so a flood costs the server nothing.
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";

export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/** Attempts one email may see per window: a slow brute force, and nobody locked out for long. */
export const SIGN_IN_PER_EMAIL = 10;
/** Attempts per client address: higher, as one office or NAT may hold many people. */
export const SIGN_IN_PER_ADDRESS = 50;

export class SignInLimit {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** Counts an attempt; the milliseconds to wait when it is over a limit, else 0. */
  async attempt(email: string, address: string): Promise<number> {
    const [byEmail, byAddress] = await Promise.all([
      this.count(this.keys.signInAttempts("email", email), SIGN_IN_PER_EMAIL),
      this.count(this.keys.signInAttempts("address", address), SIGN_IN_PER_ADDRESS),
    ]);
    return Math.max(byEmail, byAddress);
  }

  private async count(key: string, limit: number): Promise<number> {
    const attempts = await this.redis.incr(key);
    // NX: the window starts at the first attempt and later attempts do not extend it.
    await this.redis.pexpire(key, SIGN_IN_WINDOW_MS, "NX");
    if (attempts <= limit) return 0;
    return Math.max(1, await this.redis.pttl(key));
  }
}
