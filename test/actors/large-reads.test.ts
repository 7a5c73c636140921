// A worker that starts behind a long backlog reads it in reads as large as VERDICT_READ_BATCH_SIZE allows,
// once its first read (FIRST_READ_ENTRIES entries) has shown how many events an entry carries: a read of
// more than about 8,000 stream entries is applied and acknowledged (the script acknowledges in slices:
// unpacking them all at once overflowed Lua's C stack after the snapshots were written, so the entries
// stayed pending and the shard retried them forever). Such a read is now committed in several calls
// (commit-budget.ts bounds their writes), so only a commit of entries without events still needs the slices.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSUMER_GROUP } from "../../src/actors/consumer-group.js";
import { FIRST_READ_ENTRIES } from "../../src/actors/entry-size.js";
import { startVerdict, type VerdictApp } from "../../src/app.js";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";

const ENTRIES = 9000;

describe.each(DEPLOYMENTS)("a read of 9,000 entries at once (%s)", (deployment) => {
  let t: TestApp;
  let worker: VerdictApp | undefined;

  beforeAll(async () => {
    // Only the ingress at first, so the backlog builds up; one shard, so all but the first read's entries
    // come in one read.
    t = await startTestApp(deployment, { role: "ingress", shards: 1 });
  });
  afterAll(async () => {
    await worker?.stop();
    await t?.stop();
  });

  it(`applies a backlog of ${ENTRIES} entries, ${ENTRIES - FIRST_READ_ENTRIES} of them read at once`, async () => {
    expect((await t.request("PUT", "/v1/tasks/backlog", { name: "backlog", condition: "never_sent" })).status).toBe(
      201,
    );
    expect((await t.request("POST", "/v1/outcomes", { key: "deep", task_key: "backlog" })).status).toBe(201);
    // One request at a time: each is its own enqueue call, so its own stream entry.
    for (let i = 0; i < ENTRIES; i++) {
      const sent = await t.request("POST", "/v1/events", {
        outcome_key: "deep",
        action: "step",
        properties: { value: i },
      });
      if (sent.status !== 202) throw new Error(`event ${i}: ${sent.status} ${JSON.stringify(sent.body)}`);
    }
    expect(await t.app.redis.xlen(t.app.keys.stream(0))).toBe(ENTRIES);
    worker = await startVerdict({ ...t.options, role: "worker", readBatchSize: 10_000 });
    const outcome = await eventually(
      async () => {
        const read = await t.request("GET", "/v1/outcomes/deep");
        const body = read.body as { observations: { step?: { count: number } } };
        return body.observations.step?.count === ENTRIES ? body : undefined;
      },
      30_000,
      `all ${ENTRIES} events applied`,
    );
    expect(outcome.observations.step).toMatchObject({ count: ENTRIES, last_value: ENTRIES - 1 });
    // And acknowledged: a script that fails after its writes keeps them (Redis does not roll back), so the
    // count alone would not show a commit whose acknowledgement failed.
    await eventually(
      async () => {
        const [pending] = (await t.app.redis.xpending(t.app.keys.stream(0), CONSUMER_GROUP)) as [number];
        return pending === 0 ? true : undefined;
      },
      10_000,
      "every entry acknowledged",
    );
    // 9,000 requests one at a time, then up to 40 s of waiting: more than vitest's default 30 s on a slow host.
  }, 120_000);
});
