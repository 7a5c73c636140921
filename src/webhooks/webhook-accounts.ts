// Which accounts have webhook endpoints, copied into every shard's slot: the commit writes a notification
// to the outbox only for those (commit.lua's "notify"), so an account without endpoints costs no outbox
// entry. A set is complete once it holds "*"; until then the commit writes every notification. Marks
// change under a per-account lock, so the creation of a first endpoint and the deletion of a last one
// never interleave; a stale mark costs only outbox entries the dispatcher deletes.
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { masters, type RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { Scripts } from "../redis/scripts.js";

/** The member saying a shard's set holds every account with endpoints (no account id has this form). */
export const COMPLETE_MARK = "*";
/** Longer than any creation or deletion takes, so a crashed holder's lock frees itself. */
const LOCK_TTL_MS = 10_000;
const LOCK_WAIT_MS = 15_000;
const LOCK_RETRY_MS = 10;
const SCAN_COUNT = 1000;

export class WebhookAccounts {
  private readonly scripts: Scripts<{ unlock: number }>;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly shards: number,
  ) {
    this.scripts = new Scripts(client, new URL("./lua/", import.meta.url), ["unlock"]);
  }

  /** Marks the account in every shard's set (before its first endpoint exists). */
  async mark(accountId: string): Promise<void> {
    await Promise.all(
      Array.from({ length: this.shards }, (_, shard) => this.client.sadd(this.keys.webhookAccounts(shard), accountId)),
    );
  }

  /** Unmarks the account in every shard's set (after its last endpoint is gone). */
  async unmark(accountId: string): Promise<void> {
    await Promise.all(
      Array.from({ length: this.shards }, (_, shard) => this.client.srem(this.keys.webhookAccounts(shard), accountId)),
    );
  }

  /** Runs `work` holding the account's endpoint lock; throws when the lock stays taken for 15 s. */
  async locked<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    const key = this.keys.webhookEndpointsLock(accountId);
    const token = randomBytes(12).toString("hex");
    const deadline = Date.now() + LOCK_WAIT_MS;
    while ((await this.client.set(key, token, "PX", LOCK_TTL_MS, "NX")) !== "OK") {
      if (Date.now() > deadline) throw new Error(`the webhook endpoints of ${accountId} stayed locked`);
      await sleep(LOCK_RETRY_MS);
    }
    try {
      return await work();
    } finally {
      await this.scripts.run("unlock", [key], [token]);
    }
  }

  /** True when every shard's set is complete. */
  async complete(): Promise<boolean> {
    const found = await Promise.all(
      Array.from({ length: this.shards }, (_, shard) =>
        this.client.sismember(this.keys.webhookAccounts(shard), COMPLETE_MARK),
      ),
    );
    return found.every((n) => n === 1);
  }

  /**
   * Completes the sets of a deployment that has endpoints from before them: marks every account that has
   * an endpoint, then says so. Creations meanwhile mark themselves; a deletion meanwhile may leave a
   * stale mark, which is harmless.
   */
  async build(): Promise<void> {
    if (await this.complete()) return;
    // The account's endpoint index, with the account id left open.
    const [head = "", tail = ""] = this.keys.records("\u0000", "webhook-endpoint").split("\u0000");
    for (const node of masters(this.client)) {
      let cursor = "0";
      do {
        const [next, found] = await node.scan(cursor, "MATCH", `${head}*${tail}`, "COUNT", SCAN_COUNT);
        cursor = next;
        for (const key of found) {
          const accountId = key.slice(head.length, key.length - tail.length);
          if (key.startsWith(head) && key.endsWith(tail) && (await node.zcard(key)) > 0) await this.mark(accountId);
        }
      } while (cursor !== "0");
    }
    await this.mark(COMPLETE_MARK);
  }
}
