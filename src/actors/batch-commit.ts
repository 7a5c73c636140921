// Collects the effects of one batch of a shard and writes them in one atomic Lua call (commit.lua).
import { randomBytes } from "node:crypto";
import { msgpack } from "../codec/msgpack.js";
import { MsgpackWriter } from "../codec/msgpack-writer.js";
import { notificationPrefix, writeNotificationHeader, type Notification } from "../outcomes/notification.js";
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

/** An operation the reply may name as refused: its kind and its KEYS index. */
interface Refusable {
  kind: "create" | "open-quota";
  key: number;
}

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
  /** The operations, written as msgpack as they are staged (the script's ARGV[3]) after an array header. */
  private readonly out: MsgpackWriter;
  private readonly opsHeader: number;
  private opCount = 0;
  /** The operations a refusal may name (Lua counts from 1). */
  private readonly refusable = new Map<number, Refusable>();
  /** The operation that carried each blob, so a notification refers to the snapshot, letter or charge already sent. */
  private readonly blobOps = new Map<Buffer, number>();
  private readonly acks: string[] = [];
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
   * Verdict notifications per account: the operations carrying their snapshots, sent as one operation per
   * account and commit, so a verdict costs the commit a number here rather than an operation of its own
   * (and nothing more in Redis when its account has no endpoints).
   */
  private readonly verdictNotices = new Map<string, VerdictNotices>();
  private noticeCount = 0;
  /** The finished arguments, once execute has run (a second execute sends the same commit). */
  private finished: { ops: Buffer; acks: Buffer } | undefined;
  /**
   * Names this commit: the script records it, and a second run of the same commit (a call re-sent after
   * its connection dropped, by any client layer) finds it recorded and changes nothing.
   */
  private readonly id = `${COMMIT_ID_PREFIX}${(commitsMade++).toString(36)}`;
  /** What this commit adds to the insight rollups; written by stageRollups (rollup-staging.ts) before it runs. */
  readonly rollups = new RollupDelta();

  constructor(
    leaseKey: string,
    streamKey: string,
    dueKey: string,
    fenceKey: string,
    lastCommitKey: string,
    writer = new MsgpackWriter(),
  ) {
    this.keys = [leaseKey, streamKey, dueKey, fenceKey, lastCommitKey];
    this.keys.forEach((name, i) => this.keyIndex.set(name, i + 1));
    this.out = writer;
    this.opsHeader = writer.array32Placeholder();
  }

  get empty(): boolean {
    return this.opCount === 0 && this.acks.length === 0 && this.sortedSets.size === 0;
  }

  /** The writer, for its buffer to be reused once the commit has been answered (never before). */
  get writer(): MsgpackWriter {
    return this.out;
  }

  /** Writes staged so far, each a command or so of the script's (operations, sorted-set members): what bounds a commit's time in Redis. */
  get work(): number {
    let members = 0;
    for (const { members: staged } of this.sortedSets.values()) members += staged.size;
    return this.opCount + members + this.noticeCount;
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

  /**
   * A key this commit names once (a changed outcome's snapshot: each is written once per commit), added
   * without the table: a storm's commit would otherwise hash thousands of one-use keys into it. A key
   * named again through key() is listed twice, which the script and Redis take as they are.
   */
  private onceKey(name: string): number {
    this.keys.push(name);
    return this.keys.length;
  }

  /** Starts an operation of `length` fields named `kind`; returns its number (from 1, as Lua counts). */
  private op(kind: string, length: number): number {
    if (this.finished) throw new Error("a commit is not changed once it has run");
    this.out.array(length);
    this.out.string(kind);
    return ++this.opCount;
  }

  /** An operation `kind` of KEYS[k] and a blob (set, log, append, follow). */
  private blobOp(kind: string, key: number, bytes: Buffer): number {
    const n = this.op(kind, 3);
    this.out.number(key);
    this.out.blob(bytes);
    this.blobBytes += bytes.byteLength;
    this.blobOps.set(bytes, n);
    return n;
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
    this.blobOp("set", this.onceKey(key), bytes);
  }

  /**
   * Writes a new outcome's first snapshot; the whole commit fails if the key was taken meanwhile. Its
   * idempotency hash loses any expiry it got while the outcome did not exist.
   */
  create(key: string, bytes: Buffer, idempotencyKey: string): void {
    const n = this.op("create", 4);
    const k = this.key(key);
    this.out.number(k);
    this.out.blob(bytes);
    this.blobBytes += bytes.byteLength;
    this.out.number(this.key(idempotencyKey));
    this.blobOps.set(bytes, n);
    this.refusable.set(n, { kind: "create", key: k });
  }

  /** Appends an applied event to its outcome's event log. */
  log(key: string, bytes: Buffer): void {
    this.blobOp("log", this.key(key), bytes);
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
    this.blobOp("append", this.key(key), bytes);
  }

  /**
   * Writes a webhook notification to the shard's outbox in this commit, so a verdict, dead letter or charge
   * and its notification exist together or not at all. The entry also records the stream id of the last
   * `append` before it (the dead letter or charge it notifies of). Written only when `accountsKey` (the
   * shard's accounts with webhook endpoints) holds the account, or is not complete yet. The thing notified
   * of is sent once: the operation names the one that carried it, and the script puts the notification's
   * header before it.
   */
  outbox(key: string, notification: Notification, accountsKey: string): void {
    const { kind, accountId, bytes } = notification;
    this.op("notify", 6);
    this.out.number(this.key(key));
    writeNotificationHeader(this.out, kind, accountId, bytes.length);
    const carrier = this.blobOps.get(bytes);
    if (carrier === undefined) {
      this.out.blob(bytes);
      this.blobBytes += bytes.byteLength;
    } else this.out.number(carrier);
    this.out.number(this.key(accountsKey));
    this.out.string(accountId);
  }

  /**
   * The webhook notification of a verdict whose snapshot this commit writes (`set` or `create`, staged
   * before): as `outbox` would write it, but gathered per account into one operation (commit.lua's
   * "notify-verdicts"), which puts each notification's header before the snapshot it names.
   */
  outboxVerdict(key: string, accountId: string, snapshot: Buffer, accountsKey: string): void {
    const carrier = this.blobOps.get(snapshot);
    if (carrier === undefined) {
      this.outbox(key, { kind: "outcome", accountId, bytes: snapshot }, accountsKey);
      return;
    }
    let notices = this.verdictNotices.get(accountId);
    if (!notices) {
      notices = { outbox: this.key(key), accounts: this.key(accountsKey), carriers: [] };
      this.verdictNotices.set(accountId, notices);
    }
    notices.carriers.push(carrier);
    this.noticeCount++;
  }

  /**
   * Queues a charge for the PostgreSQL archive in this commit; the entry also records the stream id of the
   * last `append` before it (the charge's own entry, whose position the archive keeps).
   */
  queueForArchive(key: string, bytes: Buffer): void {
    this.blobOp("follow", this.key(key), bytes);
  }

  /**
   * Lets the idempotency hash of an outcome that does not exist expire after `ms`, unless the outcome's
   * snapshot exists when the commit runs: it may have been opened since the batch found it missing.
   */
  expireOrphan(idempotencyKey: string, outcomeKey: string, ms: number): void {
    this.op("expire-orphan", 4);
    this.out.number(this.key(idempotencyKey));
    this.out.number(this.key(outcomeKey));
    this.out.number(ms);
  }

  /**
   * Adds what the batch taught a cohort to this shard's partial model (counts with HINCRBY, sums with
   * HINCRBYFLOAT) and keeps the hash `ttlMs` longer: a cohort nobody trains expires.
   */
  model(key: string, counts: readonly (string | number)[], sums: readonly (string | number)[], ttlMs: number): void {
    this.op("model", 5);
    this.out.number(this.key(key));
    this.out.list(counts);
    this.out.list(sums);
    this.out.number(ttlMs);
  }

  /** Adds `by` to a hash field; with `expireMs`, the hash then expires that long after this commit. */
  count(key: string, field: string, by: number, expireMs?: number): void {
    this.op("count", expireMs === undefined ? 4 : 5);
    this.out.number(this.key(key));
    this.out.string(field);
    this.out.number(by);
    if (expireMs !== undefined) this.out.number(expireMs);
  }

  /**
   * Adds to a day's insight rollup hash (each entry: a group's field, the hour of the day, its counts and
   * clause texts as pairs; rollup.lua) and records the day in the shard's rollup index, in this commit: the
   * counts are exactly as committed as what they count.
   */
  rollup(
    key: string,
    indexKey: string,
    member: string,
    day: number,
    entries: ReadonlyArray<readonly [string, number, readonly (string | number)[], readonly string[]]>,
  ): void {
    this.op("rollup", 6);
    this.out.number(this.key(key));
    this.out.number(this.key(indexKey));
    this.out.string(member);
    this.out.number(day);
    this.out.array(entries.length);
    for (const [field, hour, counts, texts] of entries) {
      this.out.array(4);
      this.out.string(field);
      this.out.number(hour);
      this.out.list(counts);
      this.out.list(texts);
    }
  }

  /**
   * Adds `by` (more than 0) to an account's open outcomes on the shard; the whole commit fails if that would
   * take the count past `limit` (outcomes opened meanwhile by the API), so the batch is folded again.
   */
  openQuota(key: string, accountId: string, by: number, limit: number): void {
    const n = this.op("open-quota", 5);
    const k = this.key(key);
    this.out.number(k);
    this.out.string(accountId);
    this.out.number(by);
    this.out.number(limit);
    this.refusable.set(n, { kind: "open-quota", key: k });
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
    this.finished ??= this.finish();
    const reply = await run(this.keys, [leaseValue, group, this.finished.ops, this.finished.acks, this.id]);
    if (reply === COMMIT_REPLY.COMMITTED) return { ok: true };
    if (reply === COMMIT_REPLY.LEASE_LOST) return { ok: false, reason: "lease-lost" };
    if (reply === COMMIT_REPLY.FOREIGN_PENDING) return { ok: false, reason: "foreign-pending" };
    const refused = this.refusable.get(COMMIT_REPLY.REFUSED_OP - reply);
    if (refused?.kind === "open-quota") return { ok: false, reason: "open-quota" };
    return { ok: false, reason: "create-conflict", key: this.keys[(refused?.key ?? 0) - 1] ?? "" };
  }

  /**
   * The verdict notifications (one operation per account), the sorted-set operations (one variadic ZADD
   * and one ZREM per set, in slices the script can unpack), then the operations' count.
   */
  private finish(): { ops: Buffer; acks: Buffer } {
    for (const [accountId, { outbox, accounts, carriers }] of this.verdictNotices) {
      this.op("notify-verdicts", 6);
      this.out.number(outbox);
      this.out.number(accounts);
      this.out.string(accountId);
      this.out.blob(notificationPrefix("outcome", accountId));
      this.out.list(carriers);
    }
    for (const [key, { nx, members }] of this.sortedSets) {
      const added: (string | number)[] = [];
      const removed: string[] = [];
      for (const [member, score] of members) {
        if (score === null) removed.push(member);
        else added.push(score, member);
      }
      for (let i = 0; i < added.length; i += SORTED_SET_SLICE) {
        this.op("zadd", 4);
        this.out.number(key);
        this.out.number(nx ? 1 : 0);
        this.out.list(added.slice(i, i + SORTED_SET_SLICE));
      }
      for (let i = 0; i < removed.length; i += SORTED_SET_SLICE) {
        this.op("zrem", 3);
        this.out.number(key);
        this.out.list(removed.slice(i, i + SORTED_SET_SLICE));
      }
    }
    this.out.patchArray32(this.opsHeader, this.opCount);
    return { ops: this.out.bytes(), acks: msgpack.pack(this.acks) };
  }
}

/** An account's verdict notifications in one commit: KEYS indexes of the outbox and of the accounts with endpoints, and the operations carrying the snapshots. */
interface VerdictNotices {
  outbox: number;
  accounts: number;
  carriers: number[];
}
