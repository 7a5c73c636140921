// Webhooks under kill -9: worker processes (which dispatch the webhooks of the shards they own) are killed
// with SIGKILL every two seconds and replaced while VERDICTS outcomes are confirmed. Every verdict makes
// exactly one message id, and every one reaches the receiver (at least once: a message whose attempt
// was under way when its worker died goes out again, with the same webhook-id).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { envFor, spawnVerdict, type VerdictProcess } from "../support/processes.js";
import { Receiver } from "./receiver.js";

/** The 10,000 on the standalone Redis; fewer on the cluster, whose suite is slower here. */
const VERDICTS_ON = { standalone: 10_000, cluster: 3_000 } as const;
const BATCH = 500;

describe.each(DEPLOYMENTS)("webhooks with worker kill -9 (%s)", (deployment) => {
  const VERDICTS = VERDICTS_ON[deployment];
  let t: TestApp;
  let receiver: Receiver;
  const workers: VerdictProcess[] = [];

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestApp(deployment, {
      role: "ingress",
      shards: 16,
      leaseTtlMs: 1000,
      webhookAllowPrivateUrls: true,
    });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await t?.stop();
    await receiver?.stop();
  });

  it("makes one distinct message id per verdict and delivers every one", async () => {
    // The backlog bound (a receiver that falls behind gets no new messages past it) is bounds.test.ts's
    // subject; here every verdict must go out, so it is set past what kills can pile up.
    const env = {
      ...envFor(t.options),
      VERDICT_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      VERDICT_WEBHOOK_RETRY_SCHEDULE: "200ms,200ms,500ms,1s,1s,2s,2s,5s,5s,5s",
      VERDICT_WEBHOOK_BACKLOG_MAX: "1000000",
    };
    for (let i = 0; i < 3; i++) workers.push(await spawnVerdict("worker", env));
    const created = await t.request("POST", "/v1/webhook-endpoints", {
      url: receiver.url("/fleet"),
      event_types: ["outcome.confirmed"],
    });
    expect(created.status).toBe(201);

    expect((await t.request("PUT", "/v1/tasks/kill", { name: "kill", goal: null, condition: "done" })).status).toBe(
      201,
    );
    const keys = Array.from({ length: VERDICTS }, (_, i) => `kill:${i}`);
    // A loaded machine can make Redis miss the API's liveness deadline: a 503 is retryable by the spec.
    const open = async (key: string): Promise<void> => {
      for (;;) {
        const reply = await t.request("POST", "/v1/outcomes", { key, task_key: "kill" });
        if (reply.status !== 503) return void expect(reply.status).toBe(201);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    for (let i = 0; i < keys.length; i += 100) await Promise.all(keys.slice(i, i + 100).map(open));

    let killing = true;
    let kills = 0;
    const killer = (async () => {
      while (killing) {
        await new Promise((r) => setTimeout(r, 2000));
        if (!killing) break;
        await workers.shift()?.kill("SIGKILL");
        kills++;
        workers.push(await spawnVerdict("worker", env));
      }
    })();

    for (let i = 0; i < keys.length; i += BATCH) {
      const reply = await t.request("POST", "/v1/events/batch", {
        events: keys.slice(i, i + BATCH).map((key) => ({ outcome_key: key, action: "done" })),
      });
      expect(reply.status).toBe(202);
      expect((reply.body as { failed: unknown[] }).failed).toEqual([]);
    }
    // Keep killing while the webhooks go out, at least four times in all.
    const seenKeys = (): Set<string> =>
      new Set(receiver.received.map((r) => String((JSON.parse(r.body) as { data: { key: string } }).data.key)));
    await eventually(
      () => Promise.resolve(kills >= 4 && seenKeys().size >= VERDICTS / 2 ? true : undefined),
      300_000,
      "kills while delivering",
    );
    killing = false;
    await killer;

    await eventually(
      () => Promise.resolve(seenKeys().size === VERDICTS ? true : undefined),
      300_000,
      `all ${VERDICTS} outcomes notified`,
    );
    const ids = new Set(receiver.received.map((r) => r.id));
    expect(ids.size).toBe(VERDICTS);
    expect(seenKeys()).toEqual(new Set(keys));
    console.log(
      `webhooks under kill -9 (${deployment}): ${VERDICTS} verdicts, ${ids.size} message ids, ${receiver.received.length} deliveries (${receiver.received.length - ids.size} repeated), ${kills} kills`,
    );
  }, 900_000);
});
