// A commit's verdict notifications (BatchCommit.outboxVerdict, commit.lua's "notify-verdicts"): gathered
// into one operation per account, they reach the outbox as the same entries a notification of its own
// writes, only for accounts with endpoints, and the commit carries an account's header once, not per verdict.
import { describe, expect, it } from "vitest";
import { BatchCommit } from "../../src/actors/batch-commit.js";
import type { ActorScriptReplies } from "../../src/actors/actor-scripts.js";
import { msgpack } from "../../src/codec/msgpack.js";
import { notificationPrefix, unpackNotification } from "../../src/outcomes/notification.js";
import { Keys } from "../../src/redis/keys.js";
import type { ScriptArg } from "../../src/redis/script-command.js";
import { Scripts } from "../../src/redis/scripts.js";
import { COMPLETE_MARK } from "../../src/webhooks/webhook-accounts.js";
import { connectTo, DEPLOYMENTS, uniquePrefix } from "../support/redis.js";

const SHARD = 6;
/** Snapshot sizes at the edges of msgpack's bin length classes (8, 16 and 32 bit), which the script writes. */
const SIZES = [255, 256, 65_535, 65_536];

function occurrences(haystack: Buffer, needle: Buffer): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
}

describe.each(DEPLOYMENTS)("verdict notifications in a commit (%s)", (deployment) => {
  it("writes each as its own notification would be, for accounts with endpoints only, with one header per account", async () => {
    const client = await connectTo(deployment);
    try {
      const keys = new Keys(uniquePrefix());
      const scripts = new Scripts<ActorScriptReplies>(client, new URL("../../src/actors/lua/", import.meta.url), [
        "lease-acquire",
        "commit",
      ]);
      const lease = (await scripts.run(
        "lease-acquire",
        [keys.lease(SHARD), keys.fence(SHARD)],
        ["w1", 60_000],
      )) as string;
      await client.sadd(keys.webhookAccounts(SHARD), "with", COMPLETE_MARK);
      const commit = new BatchCommit(
        keys.lease(SHARD),
        keys.stream(SHARD),
        keys.due(SHARD),
        keys.fence(SHARD),
        keys.lastCommit(SHARD),
      );
      const snapshots = SIZES.map((size, i) => Buffer.alloc(size, i + 1));
      for (const [accountId, label] of [
        ["with", "a"],
        ["without", "b"],
      ] as const) {
        snapshots.forEach((snapshot, i) => {
          commit.set(keys.outcome(SHARD, accountId, `${label}${i}`), snapshot);
          commit.outboxVerdict(keys.webhookOutbox(SHARD), accountId, snapshot, keys.webhookAccounts(SHARD));
        });
      }
      let ops = Buffer.alloc(0);
      const run = (k: readonly string[], a: readonly ScriptArg[]): Promise<number> => {
        ops = Buffer.from(a[2] as Buffer);
        return scripts.run("commit", k, a);
      };
      expect(await commit.execute(run, lease, "verdict")).toEqual({ ok: true });

      expect(occurrences(ops, notificationPrefix("outcome", "with"))).toBe(1);
      const entries = await client.xrangeBuffer(keys.webhookOutbox(SHARD), "-", "+");
      expect(entries).toHaveLength(SIZES.length);
      entries.forEach(([, fields], i) => {
        const data = fields[fields.findIndex((field) => field.toString() === "d") + 1]!;
        expect(data.equals(msgpack.pack(["outcome", "with", snapshots[i]!]))).toBe(true);
        expect(unpackNotification(data)).toEqual({ kind: "outcome", accountId: "with", bytes: snapshots[i] });
        expect(fields[fields.findIndex((field) => field.toString() === "p") + 1]!.toString()).toBe("");
      });
    } finally {
      client.disconnect();
    }
  });
});
