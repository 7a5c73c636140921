// Dashboard sessions in Redis: a random id in the cookie, only its SHA-256 in Redis (a leaked key is no
// cookie), an idle expiry that slides on each request and an absolute lifetime that does not.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";

/** A session unused this long is gone. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** However active, a session ends this long after sign-in. */
export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;

export interface Session {
  /** Cookie value; never stored. */
  id: string;
  accountId: string;
  email: string;
  /** Sent back by every form of this session; a post without it is refused. */
  csrf: string;
  createdAt: number;
}

const hashId = (id: string): string => createHash("sha256").update(id).digest("base64url");

export class Sessions {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async create(accountId: string, email: string, now = Date.now()): Promise<Session> {
    const session: Session = {
      id: randomBytes(32).toString("base64url"),
      accountId,
      email,
      csrf: randomBytes(32).toString("base64url"),
      createdAt: now,
    };
    const key = this.keys.dashboardSession(hashId(session.id));
    await this.redis
      .multi()
      .hset(key, { account_id: accountId, email, csrf: session.csrf, created_at: String(now) })
      .pexpire(key, SESSION_IDLE_MS)
      .exec();
    return session;
  }

  /** The live session of a cookie value, its idle expiry pushed back; undefined when unknown or expired. */
  async touch(id: string, now = Date.now()): Promise<Session | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    const key = this.keys.dashboardSession(hashId(id));
    const fields = await this.redis.hgetall(key);
    const createdAt = Number(fields.created_at);
    if (!fields.account_id || !fields.email || !fields.csrf || !Number.isFinite(createdAt)) return undefined;
    const remaining = createdAt + SESSION_MAX_MS - now;
    if (remaining <= 0) {
      await this.redis.del(key);
      return undefined;
    }
    await this.redis.pexpire(key, Math.min(SESSION_IDLE_MS, remaining));
    return { id, accountId: fields.account_id, email: fields.email, csrf: fields.csrf, createdAt };
  }

  async delete(id: string): Promise<void> {
    await this.redis.del(this.keys.dashboardSession(hashId(id)));
  }
}

/** Constant-time comparison of a submitted CSRF token with the session's. */
export function csrfMatches(session: Session, submitted: string | undefined): boolean {
  if (submitted === undefined) return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(submitted);
  return a.length === b.length && timingSafeEqual(a, b);
}
