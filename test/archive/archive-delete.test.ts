// The archive's second step deletes an outcome's keys only while they still hold what the first step
// committed to PostgreSQL, and removes its index members as the first step recorded them: an outcome whose
// snapshot changed after its copy, or whose record is missing or from an older version, is put back to be
// archived again, never deleted. Real Redis (standalone and cluster) and the machine's PostgreSQL.
import { createHash } from "node:crypto";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../src/archive-db/archive-db.js";
import { createArchiveMetrics } from "../../src/archive-move/archive-metrics.js";
import { OutcomeArchiver } from "../../src/archive-move/outcome-archiver.js";
import { indexMember, scoreMember } from "../../src/outcomes/outcome-index.js";
import { newOutcomeRecord } from "../../src/outcomes/new-outcome.js";
import { packOutcome, type OutcomeRecord } from "../../src/outcomes/outcome-record.js";
import { outcomeRef } from "../../src/outcomes/outcome-ref.js";
import type { RedisClient } from "../../src/redis/client.js";
import { Keys } from "../../src/redis/keys.js";
import { Scripts } from "../../src/redis/scripts.js";
import type { ActorScriptReplies } from "../../src/actors/actor-scripts.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { connectTo, DEPLOYMENTS, uniquePrefix } from "../support/redis.js";

const SHARD = 2;
const ACCOUNT = "acct";
const CREATED = Date.UTC(2026, 10, 20);
const RETENTION_MS = 1000;

function confirmed(key: string, trajectory: number | null): OutcomeRecord {
  const record = newOutcomeRecord({
    accountId: ACCOUNT,
    key,
    origin: { kind: "task", taskKey: "t" },
    goal: null,
    settlementPeriodMs: null,
    settlesAt: null,
    condition: "done",
    at: CREATED,
  });
  return { ...record, status: "CONFIRMED", verdictAt: CREATED + 1000, scores: { ...record.scores, trajectory } };
}

describe.each(DEPLOYMENTS)("archive delete step (%s)", (deployment) => {
  let db: TestDatabase;
  let redis: RedisClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.sql);
    redis = await connectTo(deployment);
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    await db?.drop();
  }, 30_000);

  it("deletes what still matches its copy, members as recorded, and puts back what changed or was recorded without members", async () => {
    const keys = new Keys(uniquePrefix());
    const scripts = new Scripts<ActorScriptReplies>(redis, new URL("../../src/actors/lua/", import.meta.url), [
      "lease-acquire",
      "archive-delete",
    ]);
    const leaseValue = (await scripts.run(
      "lease-acquire",
      [keys.lease(SHARD), keys.fence(SHARD)],
      ["w1", 60_000],
    )) as string;
    let clock = CREATED + 10_000;
    const forgotten: string[] = [];
    const archiver = new OutcomeArchiver({
      redis,
      keys,
      sql: db.sql,
      retentionMs: RETENTION_MS,
      leases: () => [{ shard: SHARD, leaseValue }],
      deleteScript: (scriptKeys, args) => scripts.run("archive-delete", scriptKeys, args),
      forget: (_shard, refs) => forgotten.push(...refs),
      logger: silentLogger,
      metrics: createArchiveMetrics(new Registry()),
      now: () => clock,
    });

    // Two settled outcomes in Redis as a worker's commit leaves them: snapshot, idempotency hash, creation
    // index member, a score index member for the scored one, and the settled index.
    const outcomes = { kept: confirmed("kept", 0.75), changed: confirmed("changed", null) };
    for (const record of Object.values(outcomes)) {
      await redis.set(keys.outcome(SHARD, ACCOUNT, record.key), packOutcome(record));
      await redis.hset(keys.idempotency(SHARD, ACCOUNT, record.key), "k1", "1");
      await redis.zadd(keys.outcomeIndex(SHARD, ACCOUNT), 0, indexMember(record.createdAt, record.key));
      await redis.zadd(keys.settled(SHARD), record.verdictAt!, outcomeRef(ACCOUNT, record.key));
    }
    const trajectoryMember = scoreMember(0.75, "kept");
    await redis.zadd(keys.scoreIndex(SHARD, ACCOUNT, "trajectory"), 0, trajectoryMember);
    // An outcome whose record was written by a version that recorded no members.
    const legacy = confirmed("legacy", null);
    const legacyRef = outcomeRef(ACCOUNT, legacy.key);
    const legacySnapshot = packOutcome(legacy);
    await redis.set(keys.outcome(SHARD, ACCOUNT, legacy.key), legacySnapshot);
    await redis.zadd(keys.archived(SHARD), 0, legacyRef);
    await redis.hset(
      keys.archivedDigests(SHARD),
      legacyRef,
      `${createHash("sha1").update(legacySnapshot).digest("hex")} 0`,
    );

    const rows = async (): Promise<number> =>
      Number((await db.sql<{ n: string }[]>`SELECT count(*) AS n FROM outcomes`)[0]!.n);
    const inRedis = (key: string): Promise<number> => redis.exists(keys.outcome(SHARD, ACCOUNT, key));
    /** Back in the settled index, to be copied again; its archive record dropped. */
    const putBack = async (key: string): Promise<void> => {
      const ref = outcomeRef(ACCOUNT, key);
      expect(await inRedis(key)).toBe(1);
      expect(await redis.zscore(keys.settled(SHARD), ref)).not.toBeNull();
      expect(await redis.zscore(keys.archived(SHARD), ref)).toBeNull();
      expect(await redis.hget(keys.archivedDigests(SHARD), ref)).toBeNull();
    };

    // Pass 1: both settled outcomes copied, nothing of theirs deleted before the grace period; the legacy
    // record (past its grace already) matches nothing and its outcome is put back.
    expect(await archiver.pass()).toBe(0);
    expect(await rows()).toBe(2);
    expect(await inRedis("kept")).toBe(1);
    await putBack("legacy");

    // The "changed" outcome's snapshot changes after its copy (as a later commit would change it).
    const changed = { ...outcomes.changed, scores: { ...outcomes.changed.scores, anomaly: 0.5 } };
    await redis.set(keys.outcome(SHARD, ACCOUNT, "changed"), packOutcome(changed));

    // Pass 2, past the grace period: "kept" leaves Redis with its index members as recorded; "changed" is
    // put back; "legacy" is copied again, in today's form.
    clock += 60_000;
    expect(await archiver.pass()).toBe(1);
    // The worker drops the page's outcomes from its memory; those put back load again from Redis.
    expect(forgotten).toContain(outcomeRef(ACCOUNT, "kept"));
    for (const key of [keys.outcome(SHARD, ACCOUNT, "kept"), keys.idempotency(SHARD, ACCOUNT, "kept")])
      expect(await redis.exists(key)).toBe(0);
    expect(await redis.zscore(keys.outcomeIndex(SHARD, ACCOUNT), indexMember(CREATED, "kept"))).toBeNull();
    expect(await redis.zscore(keys.scoreIndex(SHARD, ACCOUNT, "trajectory"), trajectoryMember)).toBeNull();
    await putBack("changed");
    expect(await redis.zscore(keys.outcomeIndex(SHARD, ACCOUNT), indexMember(CREATED, "changed"))).not.toBeNull();
    expect(await rows()).toBe(3);

    // Passes 3 and 4: "legacy", then "changed" (copied again with its change), leave Redis too.
    clock += 60_000;
    expect(await archiver.pass()).toBe(1);
    expect(await inRedis("legacy")).toBe(0);
    clock += 60_000;
    expect(await archiver.pass()).toBe(1);
    expect(await inRedis("changed")).toBe(0);
    expect(await rows()).toBe(3);
    const [row] = await db.sql<{ anomaly: number | null }[]>`SELECT anomaly FROM outcomes WHERE key = 'changed'`;
    expect(row!.anomaly).toBe(0.5);
  });
});
