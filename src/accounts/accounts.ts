// Accounts and their API tokens: create, show (recomputed, never stored) and rotate (revokes the old one everywhere).
import { randomInt } from "node:crypto";
import { signToken } from "../auth/token.js";
import type { RedisClient } from "../redis/client.js";
import { replicated } from "../redis/replica-acks.js";
import { Scripts } from "../redis/scripts.js";
import type { Keys } from "../redis/keys.js";

/** Longest wait for running nodes to acknowledge a rotation. */
const ROTATION_ACK_TIMEOUT_MS = 2000;

const ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export class AccountNotFoundError extends Error {
  override readonly name = "AccountNotFoundError";
  constructor(readonly accountId: string) {
    super(`no account ${accountId}`);
  }
}

export interface AccountToken {
  account_id: string;
  token: string;
}

function newAccountId(): string {
  let id = "acct_";
  for (let i = 0; i < 20; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/** A token change is rare and interactive: a replica gets this long to acknowledge it. */
const REPLICA_ACK_TIMEOUT_MS = 5000;

interface AccountScriptReplies {
  /** [generation, subscribers that received the announcement], or [0, 0] when the mode's precondition failed. */
  "set-token-generation": [generation: number, subscribers: number];
}

export class Accounts {
  private readonly scripts: Scripts<AccountScriptReplies>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly tokenSecret: string,
    /** Replicas that must hold a token generation before it is handed out (WAIT). */
    private readonly replicaAcks = 0,
  ) {
    this.scripts = new Scripts(redis, new URL("./lua/", import.meta.url), ["set-token-generation"]);
  }

  async create(name: string): Promise<AccountToken> {
    if (name.trim() === "") throw new Error("an account needs a non-empty name");
    for (;;) {
      const accountId = newAccountId();
      // The record first: a generation without a record would be a token for an account nobody can list.
      const created = await this.redis.hsetnx(this.keys.account(accountId), "id", accountId);
      if (created === 0) continue;
      await this.redis.hset(this.keys.account(accountId), { name, created_at: new Date().toISOString() });
      const generation = await this.setGeneration(accountId, "create");
      if (generation === 0) continue;
      return { account_id: accountId, token: signToken(this.tokenSecret, { accountId, generation }) };
    }
  }

  /** The account's current token, recomputed from its generation. */
  async show(accountId: string): Promise<AccountToken> {
    const generation = await this.redis.hget(this.keys.tokenGenerations(), accountId);
    if (generation === null) throw new AccountNotFoundError(accountId);
    return { account_id: accountId, token: signToken(this.tokenSecret, { accountId, generation: Number(generation) }) };
  }

  /** A new token; the previous one stops working on every node as the rotation message arrives. */
  async rotate(accountId: string): Promise<AccountToken> {
    const generation = await this.setGeneration(accountId, "rotate");
    if (generation === 0) throw new AccountNotFoundError(accountId);
    return { account_id: accountId, token: signToken(this.tokenSecret, { accountId, generation }) };
  }

  async name(accountId: string): Promise<string | undefined> {
    return (await this.redis.hget(this.keys.account(accountId), "name")) ?? undefined;
  }

  private async setGeneration(accountId: string, mode: "create" | "rotate"): Promise<number> {
    const [generation, subscribers] = await this.scripts.run(
      "set-token-generation",
      [this.keys.tokenGenerations()],
      [accountId, this.keys.tokenRotatedChannel(), mode],
    );
    // A generation a failover could roll back would revive the old token (rotate) or void the new one.
    if (!(await replicated(this.redis, this.keys.tokenGenerations(), this.replicaAcks, REPLICA_ACK_TIMEOUT_MS))) {
      throw new Error(
        `the token generation was not acknowledged by ${this.replicaAcks} replica(s) in time; run the command again`,
      );
    }
    if (mode === "rotate" && generation > 0) await this.awaitAcknowledgements(accountId, generation, subscribers);
    return generation;
  }

  /**
   * Pub/sub delivery is asynchronous: the rotation took effect in Redis, but a node may not have read the
   * announcement yet. Each node acknowledges a rotation once it applied it; waiting for as many
   * acknowledgements as the announcement reached makes "rotate returned" mean "every running node refuses
   * the old token". A node that misses it (a dropped connection) reloads all generations on reconnect,
   * so the wait is bounded rather than unconditional.
   */
  private async awaitAcknowledgements(accountId: string, generation: number, subscribers: number): Promise<void> {
    const key = this.keys.tokenRotationAcks(accountId, generation);
    const deadline = Date.now() + ROTATION_ACK_TIMEOUT_MS;
    while ((await this.redis.llen(key)) < subscribers && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}
