// Moves insight rollups from Redis to PostgreSQL once their day is older than the hot retention, so Redis
// holds only the recent days (docs/insights.md#where-rollups-live). Per owned shard, each pass:
// 1. takes each old day's hash out of the live set under a new move id (rollup-take.lua, atomic with the
//    commits that count into it: a later commit starts a new hash, which moves later);
// 2. copies every move not yet copied into one row per hour keyed by its move id and hour (a repeated copy
//    after a crash changes nothing), then marks it copied with the time;
// 3. deletes from Redis the moves copied more than the grace period ago (rollup-forget.lua).
// Reads (src/stores/insight-store.ts) ask PostgreSQL first and skip in Redis the moves it listed, so during
// the grace period a rollup counts once, from PostgreSQL.
import { randomBytes } from "node:crypto";
import { msgpack } from "../codec/msgpack.js";
import {
  DAY_MS,
  fieldOf,
  HOUR_MS,
  METRIC,
  moveMember,
  parseGroupField,
  parseMoveMember,
  parseRollupMember,
  TEXTS_HOUR,
  type GroupDay,
} from "../outcomes/insight-rollup.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { Scripts } from "../redis/scripts.js";
import type { Logger } from "../telemetry/logger.js";
import type { ArchiveSql } from "../archive-db/archive-db.js";
import type { ArchiveMetrics } from "./archive-metrics.js";
import { storableText } from "../archive-db/storable-text.js";
import { Mover } from "./mover.js";

const PAGE = 200;

export interface RollupMoverDeps {
  redis: RedisClient;
  keys: Keys;
  sql: ArchiveSql;
  /** The shards this worker owns now. */
  shards: () => readonly number[];
  /** A day moves once it ended this long ago (VERDICT_HOT_RETENTION). */
  retentionMs: number;
  logger: Logger;
  metrics: ArchiveMetrics;
  /** Between passes. @default 5000 */
  intervalMs?: number;
}

/**
 * A moved day's hash as the archive's rows: per hour of the day, the flat fields of migration 0005 (fieldOf)
 * and their counts, with the text of each clause counted in that hour.
 */
function hourRows(hash: Record<string, Buffer>): Map<number, Record<string, string | number>> {
  const rows = new Map<number, Record<string, string | number>>();
  for (const [field, value] of Object.entries(hash)) {
    const group = parseGroupField(field);
    if (!group) continue;
    const cells = msgpack.unpack(value) as GroupDay;
    const texts = new Map<string, string>();
    for (let j = 0; j < cells.length; j += 3)
      if (cells[j] === TEXTS_HOUR) texts.set(String(cells[j + 1]).slice(1), String(cells[j + 2]));
    for (let j = 0; j < cells.length; j += 3) {
      const hour = Number(cells[j]);
      const metric = String(cells[j + 1]);
      if (hour === TEXTS_HOUR) continue;
      let row = rows.get(hour);
      if (!row) rows.set(hour, (row = {}));
      row[storableText(fieldOf(group.dimension, metric, group.groupKey))] = Number(cells[j + 2]);
      const text = metric[0] === METRIC.clause ? texts.get(metric.slice(1)) : undefined;
      if (text !== undefined)
        row[storableText(fieldOf(group.dimension, `${METRIC.clauseText}${metric.slice(1)}`, group.groupKey))] =
          storableText(text);
    }
  }
  return rows;
}

export class RollupMover extends Mover {
  /** rollup-take.lua answers how many rollups it took; rollup-forget.lua's answer is not read. */
  private readonly scripts: Scripts<{ "rollup-take": number; "rollup-forget": unknown }>;

  constructor(private readonly deps: RollupMoverDeps) {
    super({
      intervalMs: deps.intervalMs ?? 5000,
      logger: deps.logger,
      errors: deps.metrics.errors,
      failure: "insight rollup move failed; Redis keeps the rollups",
    });
    this.scripts = new Scripts(deps.redis, new URL("./lua/", import.meta.url), ["rollup-take", "rollup-forget"]);
  }

  /** Moves what is due on the owned shards. */
  override async pass(): Promise<void> {
    await this.eachShard(
      this.deps.shards(),
      async (shard) => {
        await this.take(shard);
        await this.copy(shard);
        await this.forget(shard);
      },
      undefined,
    );
  }

  /** Step 1: the days that ended more than the retention ago leave the live set under a move id each, a page at a time. */
  private async take(shard: number): Promise<void> {
    const { redis, keys } = this.deps;
    const until = Date.now() - this.deps.retentionMs - DAY_MS;
    await this.pageByPage(
      PAGE,
      () => redis.zrangebyscore(keys.insightRollupDays(shard), "-inf", String(until), "LIMIT", 0, PAGE),
      async (members) => {
        const keysOf: string[] = [keys.insightRollupDays(shard), keys.insightRollupMoves(shard)];
        const args: string[] = [];
        for (const member of members) {
          const { day, accountId } = parseRollupMember(member);
          const moveId = `${Date.now().toString(36)}${randomBytes(8).toString("hex")}`;
          keysOf.push(keys.insightRollupDay(shard, accountId, day), keys.insightRollupMoving(shard, moveId));
          args.push(member, moveMember(moveId, day, accountId));
        }
        await this.scripts.run("rollup-take", keysOf, args);
      },
    );
  }

  /** Step 2: each move not yet copied becomes a row per hour, and is marked copied once PostgreSQL committed it. */
  private async copy(shard: number): Promise<void> {
    const { redis, keys, sql } = this.deps;
    const moves = keys.insightRollupMoves(shard);
    await this.pageByPage(
      PAGE,
      () => redis.zrangebyscore(moves, "-1", "-1", "LIMIT", 0, PAGE),
      async (members) => {
        const parsed = members.map(parseMoveMember);
        const hashes = await Promise.all(
          parsed.map(({ moveId }) => redis.hgetallBuffer(keys.insightRollupMoving(shard, moveId))),
        );
        const rows = parsed.flatMap(({ moveId, day, accountId }, i) =>
          [...hourRows(hashes[i]!)].map(([hour, fields]) => ({
            id: `${moveId}.${hour}`,
            accountId: storableText(accountId),
            hour: new Date(day + hour * HOUR_MS).toISOString(),
            fields: JSON.stringify(fields),
          })),
        );
        await sql`
          INSERT INTO insight_rollups (move_id, account_id, hour, shard, fields)
          SELECT m, a, h, s, f::jsonb FROM unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.accountId)}::text[],
            ${rows.map((r) => r.hour)}::timestamptz[], ${rows.map(() => shard)}::int4[], ${rows.map((r) => r.fields)}::text[]) AS u(m, a, h, s, f)
          ON CONFLICT DO NOTHING`;
        const marked = redis.multi();
        const now = Date.now();
        for (const member of members) marked.zadd(moves, "XX", now, member);
        await marked.exec();
        this.deps.metrics.rollupsArchived.inc(members.length);
      },
    );
  }

  /** Step 3: moves copied more than the grace period (the retention, at most 30 s) ago leave Redis. */
  private async forget(shard: number): Promise<void> {
    const { redis, keys } = this.deps;
    const moves = keys.insightRollupMoves(shard);
    const before = Date.now() - Math.min(30_000, this.deps.retentionMs);
    const members = await redis.zrangebyscore(moves, "0", `(${before}`, "LIMIT", 0, PAGE);
    for (const member of members) {
      const { moveId } = parseMoveMember(member);
      await this.scripts.run("rollup-forget", [moves, keys.insightRollupMoving(shard, moveId)], [member, before]);
    }
  }
}
