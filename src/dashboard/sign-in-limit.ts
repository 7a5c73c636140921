// Limits on sign-in and sign-up, counted in Redis so every ingress node shares them, and checked before a
// password is hashed, so a flood costs the server little. Keys hold a hash of the email, never the email,
// and a client's network (IPv4 address or IPv6 /64), never more.
import { createHash } from "node:crypto";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { Scripts } from "../redis/scripts.js";
import { clientNetwork } from "./client-network.js";

/** How long a network's sign-in count lasts, and how long an email's delays last after its last attempt. */
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/** Attempts for one email that go at once (since its last successful sign-in). */
export const SIGN_IN_FREE_ATTEMPTS = 5;
/** The wait after the free attempts, doubling with each attempt after. */
export const SIGN_IN_FIRST_DELAY_MS = 1000;
/**
 * The longest wait between two attempts for one email: a guesser gets about one try a minute, and the owner
 * is never kept out longer than this by someone else's guesses.
 */
export const SIGN_IN_MAX_DELAY_MS = 60_000;
/** Sign-in attempts per client network per window: high, as one office or NAT may hold many people. */
export const SIGN_IN_PER_NETWORK = 50;
/** Sign-ups per client network per hour: each makes an account and costs a memory-hard password hash. */
export const SIGN_UP_PER_NETWORK = 20;
export const SIGN_UP_WINDOW_MS = 60 * 60 * 1000;

const emailHash = (email: string): string => createHash("sha256").update(email).digest("base64url");

export class SignInLimit {
  private readonly scripts: Scripts<{ "sign-in-gate": number }>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly clock: () => number,
  ) {
    this.scripts = new Scripts(redis, new URL("./lua/", import.meta.url), ["sign-in-gate"]);
  }

  /** Counts a sign-in attempt; the milliseconds to wait when it may not go ahead now, else 0. */
  async attempt(email: string, address: string): Promise<number> {
    const byNetwork = await this.count(
      this.keys.signInAttempts("address", clientNetwork(address)),
      SIGN_IN_PER_NETWORK,
      SIGN_IN_WINDOW_MS,
    );
    if (byNetwork > 0) return byNetwork;
    const args = [this.clock(), SIGN_IN_FREE_ATTEMPTS, SIGN_IN_FIRST_DELAY_MS, SIGN_IN_MAX_DELAY_MS, SIGN_IN_WINDOW_MS];
    return this.scripts.run("sign-in-gate", [this.keys.signInAttempts("email", emailHash(email))], args);
  }

  /** The owner got in: the email's delays start over. */
  async succeeded(email: string): Promise<void> {
    await this.redis.del(this.keys.signInAttempts("email", emailHash(email)));
  }

  /** Counts a sign-up attempt; the milliseconds to wait when it is over the limit, else 0. */
  async signUp(address: string): Promise<number> {
    return this.count(
      this.keys.signInAttempts("signup", clientNetwork(address)),
      SIGN_UP_PER_NETWORK,
      SIGN_UP_WINDOW_MS,
    );
  }

  private async count(key: string, limit: number, windowMs: number): Promise<number> {
    const attempts = await this.redis.incr(key);
    // NX: the window starts at the first attempt and later attempts do not extend it.
    await this.redis.pexpire(key, windowMs, "NX");
    if (attempts <= limit) return 0;
    return Math.max(1, await this.redis.pttl(key));
  }
}
