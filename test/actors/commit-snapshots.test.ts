// A commit's snapshots (BatchCommit.set and create) travel as script arguments of their own, the sets of a run
// as one "mset" operation: each key gets its own snapshot, a later write of a key wins, an operation staged
// after a set sees it written (expire-orphan), and a notification names the snapshot it carries.
import { describe, expect, it } from "vitest";
import { BatchCommit } from "../../src/actors/batch-commit.js";
import type { ActorScriptReplies } from "../../src/actors/actor-scripts.js";
import { msgpack } from "../../src/codec/msgpack.js";
import { Keys } from "../../src/redis/keys.js";
import type { ScriptArg } from "../../src/redis/script-command.js";
import { Scripts } from "../../src/redis/scripts.js";
import { COMPLETE_MARK } from "../../src/webhooks/webhook-accounts.js";
import { connectTo, DEPLOYMENTS, uniquePrefix } from "../support/redis.js";

const SHARD = 9;

describe.each(DEPLOYMENTS)("snapshots in a commit (%s)", (deployment) => {
  it("writes sets and creates in the order staged, before what follows them, each notification with its snapshot", async () => {
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
      await client.sadd(keys.webhookAccounts(SHARD), "acct", COMPLETE_MARK);
      const outcome = (name: string): string => keys.outcome(SHARD, "acct", name);
      const idempotency = (name: string): string => keys.idempotency(SHARD, "acct", name);
      await client.set(idempotency("a"), "claimed");
      await client.set(idempotency("c"), "claimed");
      await client.pexpire(idempotency("c"), 60_000);
      const snapshot = (text: string): Buffer => Buffer.from(`snapshot ${text}`);
      const commit = new BatchCommit(
        keys.lease(SHARD),
        keys.stream(SHARD),
        keys.due(SHARD),
        keys.fence(SHARD),
        keys.lastCommit(SHARD),
      );
      const written = {
        a: snapshot("a"),
        b1: snapshot("b, first"),
        c: snapshot("c, created"),
        b2: snapshot("b, second"),
        d: snapshot("d"),
      };
      commit.set(outcome("a"), written.a);
      commit.set(outcome("b"), written.b1);
      // a is written by now: its idempotency hash is not an orphan's.
      commit.expireOrphan(idempotency("a"), outcome("a"), 60_000);
      commit.create(outcome("c"), written.c, idempotency("c"));
      commit.outboxVerdict(keys.webhookOutbox(SHARD), "acct", written.c, keys.webhookAccounts(SHARD));
      commit.set(outcome("b"), written.b2);
      commit.set(outcome("d"), written.d);
      commit.outboxVerdict(keys.webhookOutbox(SHARD), "acct", written.d, keys.webhookAccounts(SHARD));
      let ops = Buffer.alloc(0);
      const run = (k: readonly string[], a: readonly ScriptArg[]): Promise<number> => {
        ops = Buffer.from(a[2] as Buffer);
        return scripts.run("commit", k, a);
      };
      expect(await commit.execute(run, lease, "verdict")).toEqual({ ok: true });

      for (const bytes of Object.values(written)) expect(ops.includes(bytes)).toBe(false);
      expect(await client.getBuffer(outcome("a"))).toEqual(written.a);
      expect(await client.getBuffer(outcome("b"))).toEqual(written.b2);
      expect(await client.getBuffer(outcome("c"))).toEqual(written.c);
      expect(await client.getBuffer(outcome("d"))).toEqual(written.d);
      expect(await client.pttl(idempotency("a"))).toBe(-1);
      expect(await client.pttl(idempotency("c"))).toBe(-1);
      const entries = await client.xrangeBuffer(keys.webhookOutbox(SHARD), "-", "+");
      expect(entries.map(([, fields]) => fields[fields.findIndex((field) => field.toString() === "d") + 1]!)).toEqual([
        msgpack.pack(["outcome", "acct", written.c]),
        msgpack.pack(["outcome", "acct", written.d]),
      ]);
    } finally {
      client.disconnect();
    }
  });

  it("refuses a create of a taken key, naming it, and writes none of the commit's snapshots", async () => {
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
      const outcome = (name: string): string => keys.outcome(SHARD, "acct", name);
      await client.set(outcome("taken"), "before");
      const commit = new BatchCommit(
        keys.lease(SHARD),
        keys.stream(SHARD),
        keys.due(SHARD),
        keys.fence(SHARD),
        keys.lastCommit(SHARD),
      );
      commit.set(outcome("x"), Buffer.from("x"));
      commit.create(outcome("taken"), Buffer.from("after"), keys.idempotency(SHARD, "acct", "taken"));
      commit.set(outcome("y"), Buffer.from("y"));
      expect(await commit.execute((k, a) => scripts.run("commit", k, a), lease, "verdict")).toEqual({
        ok: false,
        reason: "create-conflict",
        key: outcome("taken"),
      });
      expect(await client.get(outcome("taken"))).toBe("before");
      expect(await client.exists(outcome("x"), outcome("y"))).toBe(0);
    } finally {
      client.disconnect();
    }
  });
});
