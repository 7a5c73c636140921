// A read full of one account's dead letters is committed in several calls, each of whole stream entries and
// within the commit budget (commit-budget.ts), so other accounts' calls to Redis never wait behind one long
// script. Here every commit call is sent twice, as a client layer re-sending after a dropped connection
// would: each letter is still written once, and another outcome's events between the batches apply once,
// in order.
import { Registry } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import type { ActorScriptReplies } from "../../src/actors/actor-scripts.js";
import { createActorMetrics } from "../../src/actors/actor-metrics.js";
import { CohortModels } from "../../src/actors/cohort-models.js";
import { CONSUMER_GROUP } from "../../src/actors/consumer-group.js";
import { HotOutcomes } from "../../src/actors/hot-outcomes.js";
import { OpenOutcomeQuota } from "../../src/actors/open-outcome-quota.js";
import { ShardActor } from "../../src/actors/shard-actor.js";
import { msgpack } from "../../src/codec/msgpack.js";
import { DEFAULT_OUTCOME_CAPS } from "../../src/outcomes/outcome-caps.js";
import { terminalRejection } from "../../src/outcomes/terminal-rejection.js";
import type { RedisClient } from "../../src/redis/client.js";
import type { ScriptArg } from "../../src/redis/script-command.js";
import { Scripts, type ScriptName } from "../../src/redis/scripts.js";
import { TurnCork } from "../../src/redis/turn-cork.js";
import { StagingTurns } from "../../src/actors/staging-turns.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { connectTo, DEPLOYMENTS } from "../support/redis.js";

const BATCHES = 6;
const BATCH_EVENTS = 500;
/** The default commit budget. */
const MAX_WRITES = 2000;

/** The actor's scripts, with every commit sent twice and the operations of each counted. */
class ResentCommits extends Scripts<ActorScriptReplies> {
  readonly commitOps: number[] = [];

  override async run<Name extends ScriptName<ActorScriptReplies>>(
    name: Name,
    keys: readonly string[],
    args: readonly ScriptArg[],
  ): Promise<ActorScriptReplies[Name]> {
    const reply = await super.run(name, keys, args);
    if (name !== "commit") return reply;
    this.commitOps.push((msgpack.unpack(args[2] as Buffer) as unknown[]).length);
    const again = await super.run(name, keys, args);
    if (again !== reply) throw new Error(`a commit sent again answered ${String(again)}, first ${String(reply)}`);
    return reply;
  }
}

describe.each(DEPLOYMENTS)("a read of many dead letters (%s)", (deployment) => {
  const apps: TestApp[] = [];
  const clients: RedisClient[] = [];
  const actors: ShardActor[] = [];
  afterAll(async () => {
    for (const actor of actors) await actor.stop();
    await Promise.all(apps.map((a) => a.stop()));
    for (const client of clients) client.disconnect();
  });

  it("commits it in bounded calls of whole entries; a commit sent twice writes nothing twice", async () => {
    // The ingress alone, so the whole backlog is there when the actor reads it.
    const t = await startTestApp(deployment, { role: "ingress", shards: 1 });
    apps.push(t);
    expect((await t.request("PUT", "/v1/tasks/t", { name: "t", condition: "never" })).status).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: "o", task_key: "t" })).status).toBe(201);
    for (let batch = 0; batch < BATCHES; batch++) {
      // Keyed events, two per outcome never opened: each outcome's idempotency hash expires as an orphan's.
      const events = Array.from({ length: BATCH_EVENTS }, (_, i) => ({
        outcome_key: `never-${batch}-${i >> 1}`,
        action: "step",
        idempotency_key: `k-${batch}-${i}`,
      }));
      expect((await t.request("POST", "/v1/events/batch", { events })).status).toBe(202);
      expect(
        (await t.request("POST", "/v1/events", { outcome_key: "o", action: "step", properties: { value: batch } }))
          .status,
      ).toBe(202);
    }

    const { keys } = t.app;
    const client = await connectTo(deployment);
    const reader = await connectTo(deployment);
    clients.push(client, reader);
    const scripts = new ResentCommits(client, new URL("../../src/actors/lua/", import.meta.url), [
      "commit",
      "lease-acquire",
      "claim-orphans",
    ]);
    const value = await scripts.run("lease-acquire", [keys.lease(0), keys.fence(0)], ["bound-worker", 60_000]);
    const actor = new ShardActor({
      lease: { shard: 0, value: String(value), workerId: "bound-worker", onLost: () => {} },
      tuning: {
        readBatchSize: 4000,
        readBatchMax: 4000,
        commitMaxWrites: MAX_WRITES,
        readIntervalMs: 0,
        maxProcessingAttempts: 3,
        outcomeCaps: DEFAULT_OUTCOME_CAPS,
        deadLetterMaxEventBytes: 65_536,
        replicaAcks: 0,
        replicaAckTimeoutMs: 50,
      },
      services: {
        client,
        cork: new TurnCork(client),
        turns: new StagingTurns(),
        keys,
        scripts,
        hot: new HotOutcomes(10_000),
        models: new CohortModels({ client, keys, shards: 1, refreshMs: 60_000, logger: silentLogger }),
        outcomeCreator: () => ({
          prefetch: () => {},
          create: () => Promise.resolve(terminalRejection("OUTCOME_NOT_FOUND", "no agents here")),
        }),
        archive: undefined,
        logger: silentLogger,
        metrics: createActorMetrics(new Registry()),
        clock: Date.now,
      },
      reader,
      openQuota: new OpenOutcomeQuota(client, keys.openOutcomes(0), 1000, 1000),
    });
    actors.push(actor);
    actor.start();

    const letters = keys.deadLetters(0, t.accountId);
    await eventually(
      async () => ((await client.xlen(letters)) >= BATCHES * BATCH_EVENTS ? true : undefined),
      30_000,
      "every event dead-lettered",
    );
    await eventually(
      async () => {
        const [pending] = (await client.xpending(keys.stream(0), CONSUMER_GROUP)) as [number];
        return pending === 0 ? true : undefined;
      },
      10_000,
      "every entry acknowledged",
    );
    await actor.stop();

    // Once each, though every commit ran twice.
    expect(await client.xlen(letters)).toBe(BATCHES * BATCH_EVENTS);
    const log = await client.xrange(keys.eventLog(0, t.accountId, "o"), "-", "+");
    expect(log).toHaveLength(BATCHES);
    const reply = await t.request("GET", "/v1/outcomes/o/events?limit=100");
    expect(
      (reply.body as { events: { properties: { value: number } }[] }).events.map((e) => e.properties.value),
    ).toEqual(Array.from({ length: BATCHES }, (_, i) => i));
    // Several calls, none past the budget by more than one entry's writes (a letter and its notification per
    // event, and one orphan expiry per two events).
    expect(scripts.commitOps.length).toBeGreaterThanOrEqual(3);
    for (const ops of scripts.commitOps) expect(ops).toBeLessThan(MAX_WRITES + 2.5 * BATCH_EVENTS + 20);
    // The orphans' idempotency hashes expire.
    expect(await client.pttl(keys.idempotency(0, t.accountId, "never-0-0"))).toBeGreaterThan(0);
  }, 120_000);
});
