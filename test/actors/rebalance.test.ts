// Shard ownership: every shard has exactly one owner among the live workers; a worker that joins takes its
// share, one that leaves hands its shards over, and one that stops heartbeating (as if killed) loses them.
import { Registry } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import { desiredShards } from "../../src/actors/assignment.js";
import { Worker } from "../../src/actors/worker.js";
import { DEFAULT_OUTCOME_CAPS } from "../../src/outcomes/outcome-caps.js";
import { terminalRejection } from "../../src/outcomes/terminal-rejection.js";
import type { RedisClient } from "../../src/redis/client.js";
import { Keys } from "../../src/redis/keys.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { eventually } from "../support/app.js";
import { connectTo, DEPLOYMENTS, uniquePrefix } from "../support/redis.js";

const SHARDS = 16;

describe.each(DEPLOYMENTS)("shard rebalancing (%s)", (deployment) => {
  const clients: RedisClient[] = [];
  afterAll(() => clients.forEach((c) => c.disconnect()));

  async function newWorker(keys: Keys): Promise<{ worker: Worker; client: RedisClient }> {
    const client = await connectTo(deployment);
    clients.push(client);
    const worker = new Worker({
      client,
      keys,
      options: {
        shards: SHARDS,
        leaseTtlMs: 1000,
        maxHotOutcomes: 1000,
        readBatchSize: 100,
        readBatchMax: 400,
        commitMaxWrites: 2000,
        readIntervalMs: 5,
        maxProcessingAttempts: 3,
        outcomeCaps: DEFAULT_OUTCOME_CAPS,
        replicaAcks: 0,
        scoreRefreshMs: 1000,
        dlqMaxEventBytes: 8192,
      },
      logger: silentLogger,
      registry: new Registry(),
      outcomeCreator: () => ({
        prefetch: () => {},
        create: () => Promise.resolve(terminalRejection("AGENT_NOT_FOUND", "unused")),
      }),
    });
    return { worker, client };
  }

  /** True when the workers' shards are disjoint and cover every shard. */
  function partitioned(workers: Worker[]): boolean {
    const owned = workers.flatMap((w) => w.ownedShards);
    return owned.length === SHARDS && new Set(owned).size === SHARDS;
  }

  /**
   * True when every worker owns exactly its rendezvous share among them. That share may be empty (with
   * random worker ids, one of three owns none of 16 shards in about 0.45% of runs), so "each owns some"
   * would fail now and then on a correct split.
   */
  function settled(workers: Worker[]): boolean {
    const ids = workers.map((w) => w.id);
    return (
      partitioned(workers) &&
      workers.every((w) => {
        const share = desiredShards(w.id, ids, SHARDS);
        return w.ownedShards.length === share.size && w.ownedShards.every((shard) => share.has(shard));
      })
    );
  }

  it("keeps exactly one owner per shard as workers join, leave and die", async () => {
    const keys = new Keys(uniquePrefix());
    const { worker: a } = await newWorker(keys);
    await a.start();
    expect(a.ownedShards).toHaveLength(SHARDS);

    const { worker: b } = await newWorker(keys);
    const { worker: c, client: cConnection } = await newWorker(keys);
    await Promise.all([b.start(), c.start()]);
    await eventually(
      () => Promise.resolve(settled([a, b, c]) ? true : undefined),
      8000,
      "each of three owning its share",
    );

    // A clean leave hands shards over at once.
    await b.stop();
    await eventually(() => Promise.resolve(settled([a, c]) ? true : undefined), 8000, "split after b left");

    // A worker cut off from Redis (as if killed or partitioned) stops heartbeating and renewing; its leases
    // expire and the survivor takes its shards.
    cConnection.disconnect();
    await eventually(
      () => Promise.resolve(a.ownedShards.length === SHARDS ? true : undefined),
      8000,
      "a takes over c's shards",
    );
    await a.stop();
    // c cannot reach Redis to release anything; stopping clears its timers at once, the rest cannot finish.
    void c.stop().catch(() => undefined);
  }, 30_000);
});
