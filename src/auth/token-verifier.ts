// Checks bearer tokens per request from memory: the signature, then the account's current generation,
// which every node keeps fresh from the rotation channel (pub/sub) and refreshes on a token newer than it knows.
import { ApiError } from "../errors/api-error.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { Periodic } from "../runtime/periodic.js";
import type { Logger } from "../telemetry/logger.js";
import { bearerToken, verifyTokenSignature } from "./token.js";
import { VerifiedTokenCache } from "./verified-token-cache.js";

/** Missed rotation messages (a subscriber reconnect) are caught up by a full reload this often. */
const RELOAD_INTERVAL_MS = 10_000;

/** Acknowledgements of a rotation are only read while `rotate` waits; keep them briefly. */
const ROTATION_ACK_TTL_MS = 60_000;

export interface TokenVerifierDeps {
  /** Commands (HGET/HGETALL of the generations hash). */
  redis: RedisClient;
  /** A connection of its own for shard pub/sub (see openShardSubscriber). */
  subscriber: RedisClient;
  keys: Keys;
  secret: string;
  logger: Logger;
}

function invalid(message: string): ApiError {
  return new ApiError("TOKEN_INVALID", message);
}

export class TokenVerifier {
  private readonly generations = new Map<string, number>();
  private readonly refreshes = new Map<string, Promise<void>>();
  /** Only tokens whose signature checked out get in, and only in their one canonical spelling. */
  private readonly verified = new VerifiedTokenCache();
  /** A reload now and then, in case a rotation's message was lost. */
  private readonly reloads: Periodic;

  private constructor(private readonly deps: TokenVerifierDeps) {
    this.reloads = new Periodic(() => this.reload(), {
      intervalMs: RELOAD_INTERVAL_MS,
      unref: true,
      onError: (error) => deps.logger.warn({ err: error }, "token generation reload failed"),
    });
  }

  /** Subscribes first, then loads every generation, so no rotation between the two is missed. */
  static async start(deps: TokenVerifierDeps): Promise<TokenVerifier> {
    const verifier = new TokenVerifier(deps);
    const channel = deps.keys.tokenRotatedChannel();
    deps.subscriber.on("smessage", (from: string, message: string) => {
      if (from === channel) verifier.onRotated(message);
    });
    // After a reconnect the subscription is restored, but messages sent meanwhile are lost: reload.
    // ("ready": a standalone connection; "+subscriber": a cluster's sharded subscriber.)
    for (const event of ["ready", "+subscriber"]) deps.subscriber.on(event, () => verifier.reloadInBackground());
    await deps.subscriber.ssubscribe(channel);
    await verifier.reload();
    verifier.reloads.start();
    return verifier;
  }

  /**
   * The account of a valid `Authorization` header value. Synchronous for known accounts; a promise when
   * the token names a generation newer than this node knows (one refresh from Redis). Throws TOKEN_INVALID.
   */
  authenticate(header: string): string | Promise<string> {
    if (header === "") throw invalid("missing Authorization header");
    const token = bearerToken(header);
    if (token === undefined) throw invalid("Authorization must be 'Bearer <token>'");
    let claims = this.verified.get(token);
    if (!claims) {
      claims = verifyTokenSignature(this.deps.secret, token);
      if (!claims) throw invalid("token is malformed or its signature is invalid");
      this.verified.set(token, claims);
    }
    const known = this.generations.get(claims.accountId);
    if (known === claims.generation) return claims.accountId;
    if (known !== undefined && claims.generation < known) throw invalid("token has been replaced by a newer one");
    const { accountId, generation } = claims;
    return this.refresh(accountId).then(() => {
      if (this.generations.get(accountId) === generation) return accountId;
      throw invalid("token is not current for its account");
    });
  }

  stop(): Promise<void> {
    return this.reloads.stop();
  }

  private onRotated(message: string): void {
    const colon = message.lastIndexOf(":");
    const generation = Number(message.slice(colon + 1));
    if (colon <= 0 || !Number.isSafeInteger(generation)) {
      this.deps.logger.warn({ message }, "ignoring malformed token rotation message");
      return;
    }
    const accountId = message.slice(0, colon);
    this.learn(accountId, generation);
    // Tell the rotating side this node now refuses the old token (it waits for every node's word).
    const acks = this.deps.keys.tokenRotationAcks(accountId, generation);
    this.deps.redis
      .multi()
      .rpush(acks, "1")
      .pexpire(acks, ROTATION_ACK_TTL_MS)
      .exec()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "could not acknowledge a token rotation"));
  }

  /** Generations only move forward, whichever of pub/sub and a reload reports first. */
  private learn(accountId: string, generation: number): void {
    const known = this.generations.get(accountId);
    if (known === undefined || generation > known) this.generations.set(accountId, generation);
  }

  private refresh(accountId: string): Promise<void> {
    let pending = this.refreshes.get(accountId);
    if (!pending) {
      pending = this.deps.redis
        .hget(this.deps.keys.tokenGenerations(), accountId)
        .then((value) => {
          if (value !== null) this.learn(accountId, Number(value));
        })
        .catch((error: unknown) => {
          throw new ApiError("TOKEN_INVALID", "token could not be checked against its account", undefined, {
            cause: error,
          });
        })
        .finally(() => this.refreshes.delete(accountId));
      this.refreshes.set(accountId, pending);
    }
    return pending;
  }

  private async reload(): Promise<void> {
    const all = await this.deps.redis.hgetall(this.deps.keys.tokenGenerations());
    for (const [accountId, generation] of Object.entries(all)) this.learn(accountId, Number(generation));
  }

  private reloadInBackground(): void {
    this.reload().catch((error: unknown) => this.deps.logger.warn({ err: error }, "token generation reload failed"));
  }
}
