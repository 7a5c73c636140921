// The worker's side of the open-outcome quota in commit.lua: a commit that would take an account's open
// outcomes on the shard past its share writes nothing, so outcomes the API opened between the batch's read
// of the count and its commit can never be exceeded.
import { describe, expect, it } from "vitest";
import { BatchCommit } from "../../src/actors/batch-commit.js";
import { Keys } from "../../src/redis/keys.js";
import type { ScriptArg } from "../../src/redis/script-command.js";
import { Scripts } from "../../src/redis/scripts.js";
import type { ActorScriptReplies } from "../../src/actors/actor-scripts.js";
import { connectTo, DEPLOYMENTS, uniquePrefix } from "../support/redis.js";

describe.each(DEPLOYMENTS)("open-outcome quota in the commit (%s)", (deployment) => {
  it("refuses a whole commit that would pass the share, and takes one that fits", async () => {
    const client = await connectTo(deployment);
    try {
      const keys = new Keys(uniquePrefix());
      const shard = 3;
      const scripts = new Scripts<ActorScriptReplies>(client, new URL("../../src/actors/lua/", import.meta.url), [
        "lease-acquire",
        "commit",
      ]);
      const lease = (await scripts.run(
        "lease-acquire",
        [keys.lease(shard), keys.fence(shard)],
        ["w1", 60_000],
      )) as string;
      const run = (k: readonly string[], a: readonly ScriptArg[]): Promise<number> => scripts.run("commit", k, a);
      const open = keys.openOutcomes(shard);
      const log = keys.eventLog(shard, "acct", "o");
      const commit = (change: (c: BatchCommit) => void): Promise<unknown> => {
        const c = new BatchCommit(
          keys.lease(shard),
          keys.stream(shard),
          keys.due(shard),
          keys.fence(shard),
          keys.lastCommit(shard),
        );
        c.log(log, Buffer.from("event"));
        change(c);
        return c.execute(run, lease, "verdict");
      };

      expect(await commit((c) => c.openQuota(open, "acct", 2, 3))).toEqual({ ok: true });
      expect(await client.hget(open, "acct")).toBe("2");
      // The API opened one meanwhile (open-outcome.lua): the share of 3 is full.
      await client.hincrby(open, "acct", 1);
      expect(await commit((c) => c.openQuota(open, "acct", 1, 3))).toEqual({ ok: false, reason: "open-quota" });
      expect(await client.xlen(log)).toBe(1);
      expect(await client.hget(open, "acct")).toBe("3");
      // A verdict frees one; another account's count is its own.
      expect(await commit((c) => c.count(open, "acct", -1))).toEqual({ ok: true });
      expect(await commit((c) => c.openQuota(open, "acct", 1, 3))).toEqual({ ok: true });
      expect(await commit((c) => c.openQuota(open, "other", 3, 3))).toEqual({ ok: true });
      expect(await client.hmget(open, "acct", "other")).toEqual(["3", "3"]);
      expect(await client.xlen(log)).toBe(4);
    } finally {
      client.disconnect();
    }
  });
});
