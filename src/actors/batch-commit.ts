// Collects the effects of one batch of a shard and writes them in one atomic Lua call (commit.lua).
import { randomBytes } from "node:crypto";
import { msgpack } from "../codec/msgpack.js";
import { notificationHeader, type Notification } from "../outcomes/notification.js";
import type { ScriptArg } from "../redis/script-command.js";
import { RollupDelta } from "../outcomes/insight-rollup.js";
import { COMMIT_REPLY } from "./actor-scripts.js";

export type CommitResult =
  | { ok: true }
  | { ok: false; reason: "lease-lost" }
  | { ok: false; reason: "create-conflict"; key: string }
  /** Nothing written: outcomes opened meanwhile (POST /v1/outcomes) left no room for the batch's under the open-outcome quota. */
  | { ok: false; reason: "open-quota" }
  /** Nothing written: entries of the stream are pending under another consumer, a worker that lost the shard. */
  | { ok: false; reason: "foreign-pending" }
  /** Committed on the master, but fewer replicas than required acknowledged it in time. */
  | { ok: false; reason: "unreplicated" };

type Op = (string | number | (string | number)[])[];

/** Index in KEYS of the shard's due-time index (fixed by the constructor). */
const DUE_KEY = 3;
/** Unpack slices in the script hold at most this many values; a variadic call longer than that is split. */
const SORTED_SET_SLICE = 1000;

/**
 * Commit ids are this process's random prefix and a count: unique across processes and restarts as a
 * random id per commit would be, without a call into the system's random source per commit (randomBytes
 * for each was 5% of a worker's CPU when single events arrive, one or two per commit).
 */
const COMMIT_ID_PREFIX = randomBytes(9).toString("base64url");
let commitsMade = 0;

export class BatchCommit {
  private readonly keyIndex = new Map<string, number>();
  private readonly keys: string[];
  private readonly ops: Op[] = [];
  private readonly blobs: ScriptArg[] = [];
  private readonly acks: string[] = [];
  /** ARGV index of each blob, so a notification refers to the snapshot, letter or charge already sent. */
  private readonly blobIndex = new Map<ScriptArg, number>();
  /** Bytes of the blobs staged so far (see `bytes`). */
  private blobBytes = 0;
  /**
   * Sorted-set writes per KEYS index, member to score (null removes; the last write of a member wins, as
   * when run in order): sent as one variadic ZADD and one ZREM per key after the other operations, so a
   * storm's verdicts cost the script one call per commit rather than one per outcome. `nx` sets are the
   * lexical indexes (ZADD NX 0).
   */
  private readonly sortedSets = new Map<number, { nx: boolean; members: Map<string, number | null> }>();
  /**
   * Names this commit: the script records it, and a second run of the same commit (a call re-sent after
   * its connection dropped, by any client layer) finds it recorded and changes nothing.
   */
  private readonly id = `${COMMIT_ID_PREFIX}${(commitsMade++).toString(36)}`;
  /** What this commit adds to the insight rollups; written by stageRollups (rollup-staging.ts) before it runs. */
  readonly rollups = new RollupDelta();

  constructor(leaseKey: string, streamKey: string, dueKey: string, fenceKey: string, lastCommitKey: string) {
    this.keys = [leaseKey, streamKey, dueKey, fenceKey, lastCommitKey];
    this.keys.forEach((name, i) => this.keyIndex.set(name, i + 1));
  }

  get empty(): boolean {
    return this.ops.length === 0 && this.acks.length === 0 && this.sortedSets.size === 0;
  }

  /** Writes staged so far, each a command or so of the script's (operations, sorted-set members): what bounds a commit's time in Redis. */
  get work(): number {
    let members = 0;
    for (const { members: staged } of this.sortedSets.values()) members += staged.size;
    return this.ops.length + members;
  }

  /** Bytes of the values staged so far (snapshots, log entries, letters, notifications). */
  get bytes(): number {
    return this.blobBytes;
  }

  private key(name: string): number {
    let index = this.keyIndex.get(name);
    if (index === undefined) {
      this.keys.push(name);
      index = this.keys.length; // Lua indexes from 1
      this.keyIndex.set(name, index);
    }
    return index;
  }

  private blob(bytes: ScriptArg): number {
    let index = this.blobIndex.get(bytes);
    if (index === undefined) {
      this.blobs.push(bytes);
      this.blobBytes += typeof bytes === "number" ? 8 : typeof bytes === "string" ? bytes.length : bytes.byteLength;
      index = this.blobs.length + 5; // ARGV[1..5] are fixed
      this.blobIndex.set(bytes, index);
    }
    return index;
  }

  private sortedSet(key: number, nx: boolean, member: string, score: number | null): void {
    let set = this.sortedSets.get(key);
    if (!set) {
      set = { nx, members: new Map() };
      this.sortedSets.set(key, set);
    }
    set.members.set(member, score);
  }

  set(key: string, bytes: Buffer): void {
    this.ops.push(["set", this.key(key), this.blob(bytes)]);
  }

  /**
   * Writes a new outcome's first snapshot; the whole commit fails if the key was taken meanwhile. Its
   * idempotency hash loses any expiry it got while the outcome did not exist.
   */
  create(key: string, bytes: Buffer, idempotencyKey: string): void {
    this.ops.push(["create", this.key(key), this.blob(bytes), this.key(idempotencyKey)]);
  }

  /** Appends an applied event to its outcome's event log. */
  log(key: string, bytes: Buffer): void {
    this.ops.push(["log", this.key(key), this.blob(bytes)]);
  }

  /** Adds the member to a lexical index (ZADD NX 0), unless it is there. */
  index(key: string, member: string): void {
    this.sortedSet(this.key(key), true, member, 0);
  }

  /** Removes the member from a lexical index (the score indexes). */
  unindex(key: string, member: string): void {
    this.sortedSet(this.key(key), true, member, null);
  }

  /** Adds or moves a member of a sorted set (the settled outcomes awaiting the archive, by verdict time). */
  zadd(key: string, score: number, member: string): void {
    this.sortedSet(this.key(key), false, member, score);
  }

  /** Schedules (or with null, unschedules) the member in the shard's due-time index. */
  due(member: string, at: number | null): void {
    this.sortedSet(DUE_KEY, false, member, at);
  }

  append(key: string, bytes: Buffer): void {
    this.ops.push(["append", this.key(key), this.blob(bytes)]);
  }

  /**
   * Writes a webhook notification to the shard's outbox in this commit, so a verdict, dead letter or charge
   * and its notification exist together or not at all. The entry also records the stream id of the last
   * `append` before it (the dead letter or charge it notifies of). Written only when `accountsKey` (the
   * shard's accounts with webhook endpoints) holds the account, or is not complete yet. The thing notified
   * of is sent once: the script puts the notification's header before the blob already in the commit.
   */
  outbox(key: string, notification: Notification, accountsKey: string): void {
    const { kind, accountId, bytes } = notification;
    this.ops.push(["notify", this.key(key), this.blob(notificationHeader(kind, accountId, bytes.length)), this.blob(bytes), this.key(accountsKey), accountId]);
  }

  /**
   * Queues a charge for the PostgreSQL archive in this commit; the entry also records the stream id of the
   * last `append` before it (the charge's own entry, whose position the archive keeps).
   */
  queueForArchive(key: string, bytes: Buffer): void {
    this.ops.push(["follow", this.key(key), this.blob(bytes)]);
  }

  /**
   * Lets the idempotency hash of an outcome that does not exist expire after `ms`, unless the outcome's
   * snapshot exists when the commit runs: it may have been opened since the batch found it missing.
   */
  expireOrphan(idempotencyKey: string, outcomeKey: string, ms: number): void {
    this.ops.push(["expire-orphan", this.key(idempotencyKey), this.key(outcomeKey), ms]);
  }

  /**
   * Adds what the batch taught a cohort to this shard's partial model (counts with HINCRBY, sums with
   * HINCRBYFLOAT) and keeps the hash `ttlMs` longer: a cohort nobody trains expires.
   */
  model(key: string, counts: readonly (string | number)[], sums: readonly (string | number)[], ttlMs: number): void {
    this.ops.push(["model", this.key(key), this.blob(msgpack.pack([counts, sums])), ttlMs]);
  }

  /** Adds `by` to a hash field; with `expireMs`, the hash then expires that long after this commit. */
  count(key: string, field: string, by: number, expireMs?: number): void {
    this.ops.push(expireMs === undefined ? ["count", this.key(key), field, by] : ["count", this.key(key), field, by, expireMs]);
  }

  /**
   * Adds to a day's insight rollup hash (each entry: a group's field, the hour of the day, its counts and
   * clause texts as pairs; rollup.lua) and records the day in the shard's rollup index, in this commit: the
   * counts are exactly as committed as what they count.
   */
  rollup(key: string, indexKey: string, member: string, day: number, entries: ReadonlyArray<readonly [string, number, readonly (string | number)[], readonly string[]]>): void {
    this.ops.push(["rollup", this.key(key), this.key(indexKey), member, day, this.blob(msgpack.pack(entries))]);
  }

  /**
   * Adds `by` (more than 0) to an account's open outcomes on the shard; the whole commit fails if that would
   * take the count past `limit` (outcomes opened meanwhile by the API), so the batch is folded again.
   */
  openQuota(key: string, accountId: string, by: number, limit: number): void {
    this.ops.push(["open-quota", this.key(key), accountId, by, limit]);
  }

  ack(entryId: string): void {
    this.acks.push(entryId);
  }

  /** Runs the commit. `run` is the registered commit script. */
  async execute(
    run: (keys: readonly string[], args: readonly ScriptArg[]) => Promise<number>,
    leaseValue: string,
    group: string,
  ): Promise<CommitResult> {
    const ops = [...this.ops, ...this.sortedSetOps()];
    const reply = await run(this.keys, [leaseValue, group, msgpack.pack(ops), msgpack.pack(this.acks), this.id, ...this.blobs]);
    if (reply === COMMIT_REPLY.COMMITTED) return { ok: true };
    if (reply === COMMIT_REPLY.LEASE_LOST) return { ok: false, reason: "lease-lost" };
    if (reply === COMMIT_REPLY.FOREIGN_PENDING) return { ok: false, reason: "foreign-pending" };
    // Lua counts operations from 1.
    const op = ops[COMMIT_REPLY.REFUSED_OP - reply - 1];
    if (op?.[0] === "open-quota") return { ok: false, reason: "open-quota" };
    const keyIndex = typeof op?.[1] === "number" ? op[1] : 0;
    return { ok: false, reason: "create-conflict", key: this.keys[keyIndex - 1] ?? "" };
  }

  /** One variadic ZADD and one ZREM per sorted set, in slices the script can unpack. */
  private sortedSetOps(): Op[] {
    const ops: Op[] = [];
    for (const [key, { nx, members }] of this.sortedSets) {
      const added: (string | number)[] = [];
      const removed: string[] = [];
      for (const [member, score] of members) {
        if (score === null) removed.push(member);
        else added.push(score, member);
      }
      for (let i = 0; i < added.length; i += SORTED_SET_SLICE) ops.push(["zadd", key, nx ? 1 : 0, added.slice(i, i + SORTED_SET_SLICE)]);
      for (let i = 0; i < removed.length; i += SORTED_SET_SLICE) ops.push(["zrem", key, removed.slice(i, i + SORTED_SET_SLICE)]);
    }
    return ops;
  }
}
