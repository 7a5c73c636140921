// A shard whose events keep coming reads at most every VERDICT_READ_INTERVAL_MS, so the events of an
// interval share one read and one commit; an event to a quiet shard is read at once. Counted in commits
// (verdict_batch_commit_seconds), not timed: the interval is long enough here that requests sent one after
// another all land inside it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, metricValue, startTestApp, type TestApp } from "../support/app.js";

const FOLLOWING = 5;

describe.each(DEPLOYMENTS)("read interval on %s", (deployment) => {
  for (const readIntervalMs of [3000, 0]) {
    describe(`VERDICT_READ_INTERVAL_MS=${readIntervalMs}`, () => {
      let t: TestApp;

      beforeAll(async () => {
        // One shard: every event below is read by the same actor.
        t = await startTestApp(deployment, { shards: 1, readIntervalMs });
        expect((await t.request("PUT", "/v1/tasks/paced", { name: "paced", condition: "never_sent" })).status).toBe(
          201,
        );
        expect((await t.request("POST", "/v1/outcomes", { key: "paced", task_key: "paced" })).status).toBe(201);
      });
      afterAll(async () => {
        await t?.stop();
      });

      const stepCount = async (): Promise<number> => {
        const read = await t.request("GET", "/v1/outcomes/paced");
        return (read.body as { observations: { step?: { count: number } } }).observations.step?.count ?? 0;
      };
      const commits = (): Promise<number> => metricValue(t.app.metricsPort, "verdict_batch_commit_seconds_count");

      it(
        readIntervalMs > 0
          ? "applies the events that arrive within an interval in one commit"
          : "commits each event read on its own",
        async () => {
          expect(
            (await t.request("POST", "/v1/events", { outcome_key: "paced", action: "step", properties: { value: 0 } }))
              .status,
          ).toBe(202);
          // The first event of a quiet shard is read at once, in a commit of its own.
          await eventually(
            async () => ((await stepCount()) === 1 ? true : undefined),
            10_000,
            "the first event applied",
          );
          const before = await commits();
          for (let i = 1; i <= FOLLOWING; i++) {
            expect(
              (
                await t.request("POST", "/v1/events", {
                  outcome_key: "paced",
                  action: "step",
                  properties: { value: i },
                })
              ).status,
            ).toBe(202);
            // Interval 0: each event applied before the next is sent, so each is read, and committed, alone.
            if (readIntervalMs === 0)
              await eventually(
                async () => ((await stepCount()) === 1 + i ? true : undefined),
                10_000,
                `event ${i} applied`,
              );
          }
          await eventually(
            async () => ((await stepCount()) === 1 + FOLLOWING ? true : undefined),
            10_000,
            "every event applied",
          );
          // Paced: the next read after the first event's starts when the interval is over, so the events sent
          // meanwhile arrive in it together; one more commit at most, for one that slipped in before it.
          if (readIntervalMs > 0) expect((await commits()) - before).toBeLessThanOrEqual(2);
          else expect((await commits()) - before).toBe(FOLLOWING);
        },
        30_000,
      );
    });
  }
});
