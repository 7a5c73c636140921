// One shard's actor: the only writer of its outcomes while it holds the shard lease. It reads the shard
// stream through a consumer group, folds events into hot outcomes in stream order, lets time pass when the
// monitor ticks, and commits each batch's effect atomically with the XACK.
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ArchivedFilter } from "../archive/archived-filter.js";
import type { ArchivedOutcomes, ArchivedOutcome } from "../archive/archived-outcomes.js";
import type { Logger } from "../telemetry/logger.js";
import { linksTo, spanContextOf, tracer, tracingEnabled } from "../telemetry/tracing.js";
import { dueAtOf } from "../outcomes/due-time.js";
import { indexMember, SCORE_NAMES, scoreMember, type ScoreName } from "../outcomes/outcome-index.js";
import { scoresOf } from "../scores/score-state.js";
import { boundedLetter, packDeadLetter } from "../outcomes/dead-letter.js";
import { packNotification } from "../outcomes/notification.js";
import { packOutcome, unpackOutcome, type OutcomeRecord } from "../outcomes/outcome-record.js";
import { outcomeRef, parseOutcomeRef } from "../outcomes/outcome-ref.js";
import { passTime } from "../outcomes/outcome-step.js";
import type { ChargeRecord, QueuedCharge } from "../outcomes/charge.js";
import type { OutcomeCaps } from "../outcomes/outcome-caps.js";
import type { RedisClient } from "../redis/client.js";
import { replicated } from "../redis/replica-acks.js";
import type { Scripts } from "../redis/scripts.js";
import type { TurnCork } from "../redis/turn-cork.js";
import { unpackEnvelope, type EventEnvelope } from "../streams/event-envelope.js";
import { ENTRY_FIELD, entryEvents } from "../streams/stream-entry.js";
import type { Keys } from "../redis/keys.js";
import type { Cohort } from "../outcomes/outcome-scores.js";
import { BatchCommit, type CommitResult } from "./batch-commit.js";
import { BatchScoring, distinctCohorts } from "./batch-scoring.js";
import type { CohortModels } from "./cohort-models.js";
import { countByMinute, hourOfMinute, INGEST_COUNT_TTL_MS } from "../streams/ingest-minutes.js";
import { entryTimeMs } from "../streams/entry-id.js";
import { foldBatch, type ChangedOutcome, type FoldWrites, type OutcomeCreator } from "./batch-fold.js";
import { CONSUMER_GROUP, ensureConsumerGroup } from "./consumer-group.js";
import { ShardReader } from "./shard-reader.js";
import { stageRollups } from "./rollup-staging.js";
import { EntrySize } from "./entry-size.js";
import { ReadSize } from "./read-size.js";
import { DeliveryAttempts } from "./delivery-attempts.js";
import { DueWake } from "./due-wake.js";
import type { HotOutcomes } from "./hot-outcomes.js";
import type { ActorMetrics } from "./actor-metrics.js";
import type { OpenOutcomeQuota } from "./open-outcome-quota.js";
import { deliveryOf, runsOf, type DecodedEntry, type EntryEvent, type StreamEntry } from "./shard-entries.js";

export type ActorScript = "commit" | "lease-acquire" | "lease-renew" | "lease-release" | "archive-delete" | "claim-orphans";

export interface ShardActorDeps {
  shard: number;
  /** "<worker>:<token>": every commit checks it (fencing). */
  leaseValue: string;
  workerId: string;
  client: RedisClient;
  /** Dedicated connection for the blocking XREADGROUP, so it never stalls other commands. */
  reader: RedisClient;
  /** Shared by the worker's actors: the commits and loads of one turn leave `client` in one write. */
  cork: TurnCork;
  keys: Keys;
  scripts: Scripts<ActorScript>;
  hot: HotOutcomes;
  /** The worker's merged cohort models, which scores read. */
  models: CohortModels;
  /** A creator per batch: configuration is read once per batch, as it is when the batch runs. */
  outcomeCreator: () => OutcomeCreator;
  /** The open-outcome quota's share of this shard: guards the batch's creations and counts its changes. */
  openQuota: OpenOutcomeQuota;
  readBatchSize: number;
  /** What reads grow to under a sustained backlog (ReadSize). */
  readBatchMax: number;
  /** Shortest time between the starts of two small reads while events keep coming (options.readIntervalMs; see pace). */
  readIntervalMs: number;
  maxProcessingAttempts: number;
  /** What one outcome may store (outcome-caps.ts). */
  outcomeCaps: OutcomeCaps;
  /** A dead letter's event larger than this keeps only a prefix in Redis (options.dlqMaxEventBytes). */
  deadLetterMaxEventBytes: number;
  /** Replicas that must hold each commit before it counts (WAIT); 0 trusts the master. */
  replicaAcks: number;
  replicaAckTimeoutMs: number;
  /**
   * The PostgreSQL archive, when one is configured: charges are queued for it, verdicts enter the settled
   * index it is moved from, and an event to an outcome missing from Redis is checked against it.
   */
  archive: ArchivedOutcomes | undefined;
  /** With the archive: which unknown outcomes it may hold, so that only those are looked up. */
  archivedFilter: ArchivedFilter | undefined;
  logger: Logger;
  metrics: ActorMetrics;
  /** The business clock: time points are processed up to it. */
  clock: () => number;
  /** Called once when a claim or a commit finds the lease gone: the worker stops this actor. */
  onLeaseLost(shard: number): void;
}

const BLOCK_MS = 100;
/** Reads of fewer events than this are paced (see pace): a commit's fixed cost is spread enough above it. */
const PACED_BELOW_EVENTS = 100;
/** Time passes only up to this long ago, so an event stamped at the edge but still in flight to the stream is not overtaken by a verdict. */
const CLOCK_GRACE_MS = 100;
const DUE_PAGE = 500;
const MAX_DUE_PAGES_PER_TICK = 100;
/**
 * How far past the clock a settle looks: the soonest due time in that window gets a timer of its own (the
 * verdict is made then, not at the next whole-second tick), and the outcomes due in it are loaded now, so
 * a deadline many outcomes share costs at its instant only their verdicts.
 */
const DUE_LOOKAHEAD_MS = 2000;
/** Most outcomes one settle loads ahead of their due time (they stay hot until then). */
const MAX_PRELOADED = 20_000;
/** How often an idle shard looks for entries a stale reader took (see claim-orphans.lua). */
const IDLE_CLAIM_INTERVAL_MS = 1000;
/** Longest a requested tick waits for the stream to drain. */
const MAX_SETTLE_DELAY_MS = 2000;
/** Idempotency keys of an event whose outcome does not exist are kept this long. */
const ORPHAN_IDEMPOTENCY_TTL_MS = 30 * 24 * 3600 * 1000;
/** A shard's partial score model of a cohort that no commit trains for this long expires. */
const SCORE_MODEL_TTL_MS = 30 * 24 * 3600 * 1000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class ShardActor {
  private stopping = false;
  private running: Promise<void> | undefined;
  /** Read our own pending entries (redeliveries, retries) before new ones. */
  private pendingFirst = true;
  private tickRequested = false;
  private streamDrained = false;
  /** When due verdicts were last made (real time), so a shard that never drains still makes them. */
  private lastSettledAt = Date.now();
  private readonly attempts: DeliveryAttempts;
  /** Events per stream entry, so a read of `entrySize.entriesFor(n)` entries holds about n events. */
  private readonly entrySize = new EntrySize();
  private readonly readSize: ReadSize;
  private readonly reads: ShardReader;
  /** Whether the earlier owners' pending entries are ours yet (done once, before the first read). */
  private tookOver = false;
  /** When entries pending under other consumers were last looked for while the shard was idle. */
  private lastIdleClaimAt = Date.now();
  /** Requests a tick at the soonest due time a settle saw ahead. */
  private readonly dueWake: DueWake;

  constructor(private readonly deps: ShardActorDeps) {
    this.attempts = new DeliveryAttempts(deps.maxProcessingAttempts);
    this.dueWake = new DueWake(deps.clock, () => {
      if (!this.stopping) this.requestTick();
    });
    this.readSize = new ReadSize(deps.readBatchSize, deps.readBatchMax);
    const { reader, scripts, keys, shard, leaseValue, workerId } = deps;
    this.reads = new ShardReader({ reader, scripts, keys, shard, leaseValue, workerId, blockMs: BLOCK_MS });
  }

  get shard(): number {
    return this.deps.shard;
  }

  start(): void {
    this.running = this.run().catch((error: unknown) => {
      this.deps.logger.error({ err: error, shard: this.deps.shard }, "shard actor stopped on an error");
    });
  }

  /** Stops after the batch in hand is committed; the reader connection is closed to end a blocking read. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.dueWake.cancel();
    this.deps.reader.disconnect();
    await this.running;
    this.deps.hot.dropShard(this.deps.shard);
  }

  /** The monitor's tick: due verdicts are made as soon as the stream is drained. */
  requestTick(): void {
    this.tickRequested = true;
  }

  private async run(): Promise<void> {
    const { client, keys, shard } = this.deps;
    while (!this.stopping) {
      try {
        // Inside the loop, so Redis trouble at takeover is retried like any other, not an actor gone quiet
        // under a lease its worker keeps renewing. The claimed entries are read before new ones.
        if (!this.tookOver) {
          await ensureConsumerGroup(client, keys.stream(shard));
          await this.claimOrphans();
          this.tookOver = true;
          continue;
        }
        // Due verdicts wait for the stream to drain (events received before a deadline apply first), but
        // not forever: under sustained load a shard that always reads full batches settles anyway.
        const overdue = Date.now() - this.lastSettledAt > MAX_SETTLE_DELAY_MS;
        if (this.tickRequested && (this.streamDrained || overdue)) {
          this.tickRequested = false;
          this.lastSettledAt = Date.now();
          await this.traced("shard.settle_due", {}, () => this.settleDue(this.deps.clock() - CLOCK_GRACE_MS));
          continue;
        }
        const readEvents = this.readSize.events;
        const count = this.entrySize.entriesFor(readEvents);
        const readAt = performance.now();
        const entries = await this.read(count);
        if (this.stopping) break;
        const full = entries.length >= count;
        this.readSize.observe(full, entries.length === 0 ? 0 : Date.now() - entryTimeMs(entries[0]!.id));
        if (entries.length === 0) {
          if (this.pendingFirst) this.pendingFirst = false;
          else this.streamDrained = true;
          // Entries a stale reader took while no commit of ours came to refuse them (see claim-orphans.lua).
          if (Date.now() - this.lastIdleClaimAt >= IDLE_CLAIM_INTERVAL_MS) {
            this.lastIdleClaimAt = Date.now();
            await this.claimOrphans();
          }
          continue;
        }
        this.streamDrained = !this.pendingFirst && entries.length < count;
        await this.traced("shard.batch", { "verdict.entries": entries.length }, () =>
          // A full read is a backlog whose events are in memory already: fewer, larger commits drain it sooner.
          this.processEntries(entries, full ? this.readSize.max : readEvents),
        );
        if (!full) await this.pace(readAt, entries);
      } catch (error) {
        if (this.stopping) break;
        // Redis trouble or a commit whose fate is unknown: forget what memory may hold ahead of Redis and
        // read our pending entries again; the snapshots' last applied entry ids make that safe.
        this.deps.logger.warn({ err: error, shard }, "shard batch failed; retrying from pending entries");
        this.deps.hot.dropShard(shard);
        this.pendingFirst = true;
        // A Redis that came back without the stream's group (restarted with nothing on disk): take the
        // shard over again, which creates it, rather than fail every read.
        if (String(error).includes("NOGROUP")) this.tookOver = false;
        await sleep(200);
      }
    }
  }

  /**
   * After a small read (fewer than PACED_BELOW_EVENTS events) that did not fill, the next starts no sooner
   * than readIntervalMs after it: while events arrive one or a few at a time faster than the shard reads,
   * those of the interval share one read and one commit (a script call, a snapshot write per outcome
   * touched, the round trips), most of whose cost is per commit. With single events on two cores, 15 ms
   * cut the worker's CPU per event by about a seventh (docs/performance.md, Read interval). A read that
   * waited longer than the interval for its first entry is a quiet shard: no wait then, so an event alone
   * is applied as soon as it arrives; under load an event waits at most the interval. Larger reads are not
   * paced: their commit's cost is spread over their events already, and waiting would only delay them.
   */
  private async pace(readAt: number, entries: readonly StreamEntry[]): Promise<void> {
    const wait = this.deps.readIntervalMs - (performance.now() - readAt);
    if (wait <= 0 || this.stopping) return;
    let events = 0;
    for (const entry of entries) events += entry.events.length;
    if (events < PACED_BELOW_EVENTS) await sleep(wait);
  }

  /** Runs one unit of the actor's work in a span, so a trace shows where a batch's time went. */
  private traced(name: string, attributes: Record<string, number>, work: () => Promise<void>): Promise<void> {
    return tracer().startActiveSpan(name, { attributes: { "verdict.shard": this.deps.shard, ...attributes } }, async (span) => {
      try {
        await work();
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  private async read(count: number): Promise<StreamEntry[]> {
    const raw = this.pendingFirst ? await this.reads.pending(count) : await this.reads.fresh(count);
    let events = 0;
    let largest = 0;
    const entries = raw.map(([rawId, fields]): StreamEntry => {
      const id = rawId.toString();
      // Re-reading pending entries gives null fields for entries deleted (trimmed) since delivery.
      const packed = fields ? this.eventsOf(id, fields) : [];
      events += packed.length;
      largest = Math.max(largest, packed.length);
      return { id, events: packed };
    });
    this.entrySize.observe(entries.length, events, largest);
    return entries;
  }

  /**
   * The entry's packed envelopes, or none when its value is not what the ingress writes (something else
   * wrote to the stream): it names no account whose dead-letter queue could hold it, so it is logged,
   * counted and acknowledged rather than left to block the shard.
   */
  private eventsOf(id: string, fields: Buffer[]): Buffer[] {
    const events = fields.length === 2 && fields[0]!.toString() === ENTRY_FIELD ? entryEvents(fields[1]!) : undefined;
    if (events) return events;
    this.malformed(id);
    return [];
  }

  private malformed(id: string, index?: number): void {
    this.deps.logger.error({ shard: this.deps.shard, entry: id, index }, "stream entry is not what the ingress writes; acknowledged without applying");
    this.deps.metrics.malformedEntries.inc();
  }

  /** Outcomes not in memory are fetched in one MGET (a shard's keys share a slot). */
  private async load(refs: Iterable<string>): Promise<Map<string, OutcomeRecord>> {
    const { client, keys, shard, hot } = this.deps;
    const loaded = new Map<string, OutcomeRecord>();
    const missing: string[] = [];
    for (const ref of refs) {
      const record = hot.get(shard, ref);
      if (record) loaded.set(ref, record);
      else missing.push(ref);
    }
    if (missing.length > 0) {
      this.deps.cork.hold();
      const snapshots = await client.mgetBuffer(
        ...missing.map((ref) => {
          const { accountId, outcomeKey } = parseOutcomeRef(ref);
          return keys.outcome(shard, accountId, outcomeKey);
        }),
      );
      missing.forEach((ref, i) => {
        const bytes = snapshots[i];
        if (bytes) loaded.set(ref, unpackOutcome(bytes));
      });
      this.deps.metrics.snapshotLoads.inc(missing.length);
    }
    return loaded;
  }

  /**
   * The batch's outcomes missing from Redis that the archive holds: an event to one must neither reopen
   * nor change it. Only outcomes Redis lacks, and of those only the ones the shard's filter may hold
   * (new outcomes mostly are not), are looked up, in one query per batch; the archiver deletes from Redis
   * only after PostgreSQL committed, and sets the filter's bits as it deletes, so nothing falls between.
   */
  private async archivedAmong(refs: Set<string>, records: Map<string, OutcomeRecord>): Promise<Map<string, ArchivedOutcome>> {
    const { archive, archivedFilter, shard } = this.deps;
    if (!archive) return new Map();
    const missing = [...refs].filter((ref) => !records.has(ref));
    if (missing.length === 0) return new Map();
    const maybe = archivedFilter ? await archivedFilter.mayHold(shard, missing) : missing;
    return maybe.length === 0 ? new Map() : archive.lookup(maybe.map(parseOutcomeRef));
  }

  private newCommit(): BatchCommit {
    const { keys, shard } = this.deps;
    return new BatchCommit(keys.lease(shard), keys.stream(shard), keys.due(shard), keys.fence(shard), keys.lastCommit(shard));
  }

  /** Commits a read's entries in runs of about `runEvents` events; stops at a run that did not commit. */
  private async processEntries(entries: StreamEntry[], runEvents: number): Promise<void> {
    for (const run of runsOf(entries, runEvents)) {
      if (!(await this.processBatch(run))) return;
    }
  }

  /** Applies the entries' events and commits their effect with their XACK; false when nothing was committed. */
  private async processBatch(raw: StreamEntry[]): Promise<boolean> {
    const { shard, metrics } = this.deps;
    const started = performance.now();
    const entries = raw.map((entry) => this.decode(entry));
    const refs = new Set<string>();
    for (const entry of entries) for (const { ref } of entry.events) refs.add(ref);
    if (tracingEnabled()) this.linkBatchToRequests(entries);
    const records = await this.load(refs);
    const archived = await this.archivedAmong(refs, records);
    const unguarded = this.deps.outcomeCreator();
    // Accounts whose events may open outcomes: the open-outcome quota reads their counts.
    const creating = new Set<string>();
    for (const entry of entries) {
      for (const { event, ref } of entry.events) {
        if (event.variant === "B" && !records.has(ref) && !archived.has(ref)) {
          unguarded.prefetch(event);
          creating.add(event.accountId);
        }
      }
    }
    const cohorts: Cohort[] = distinctCohorts(records.values());
    for (const entry of entries) {
      for (const { event, ref } of entry.events) {
        if (event.variant === "B" && event.agentKey !== undefined && !records.has(ref) && !archived.has(ref)) cohorts.push({ accountId: event.accountId, kind: "agent", key: event.agentKey });
      }
    }
    const [creator] = await Promise.all([this.deps.openQuota.guard(unguarded, creating), this.deps.models.ensure(cohorts)]);
    const scoring = new BatchScoring((cohort) => this.deps.models.model(cohort));
    const commit = this.newCommit();
    const deadLettered = new Map<string, number>();
    const fold = await foldBatch({ entries, records, archived, creator, attempts: this.attempts, writes: this.commitWrites(commit, deadLettered, records), scoring, caps: this.deps.outcomeCaps });
    if (!fold.ok) {
      // Unexpected: give up the whole batch (memory may be half-applied), count the attempt, back off, and
      // redo it from the snapshots; after the last attempt the event is dead-lettered instead.
      const attempt = this.attempts.recordFailure(deliveryOf(fold.entryId, fold.index), fold.error);
      this.deps.logger.warn({ err: fold.error, shard, entry: fold.entryId, index: fold.index, attempt }, "event processing failed");
      for (const touched of records.keys()) this.deps.hot.delete(shard, touched);
      this.pendingFirst = true;
      await sleep(Math.min(2000, 50 * 2 ** attempt));
      return false;
    }

    this.stage(commit, fold.changed, scoring);
    this.countIngest(commit, entries);
    const result = await this.execute(commit);
    if (!result.ok) {
      for (const touched of records.keys()) this.deps.hot.delete(shard, touched);
      this.pendingFirst = true;
      return false;
    }
    // Every loaded or created record now matches what Redis holds.
    for (const [ref, record] of records) this.deps.hot.set(shard, ref, record);
    this.attempts.committed(entries);
    if (tracingEnabled()) this.traceAppliedEvents(entries, records, started);
    metrics.eventsProcessed.inc(fold.events);
    for (const [code, n] of deadLettered) metrics.deadLetters.inc({ code }, n);
    metrics.batchSeconds.observe((performance.now() - started) / 1000);
    // Receipt is stamped with the same business clock (wall time outside tests).
    if (fold.oldestReceivedAt !== Infinity) metrics.eventLagSeconds.observe(Math.max(0, this.deps.clock() - fold.oldestReceivedAt) / 1000);
    return true;
  }

  /** Links the batch's span to the request of every event that carried a trace context. */
  private linkBatchToRequests(entries: readonly DecodedEntry[]): void {
    const traceparents: string[] = [];
    for (const entry of entries) for (const { event } of entry.events) if (event.traceparent !== undefined) traceparents.push(event.traceparent);
    trace.getActiveSpan()?.addLinks(linksTo(traceparents));
  }

  /**
   * For each sampled event, a span in the event's own trace (child of its request) from the batch's start
   * to its commit, linked to the batch span: "HTTP 202 -> enqueue -> applied" in one trace. An event that
   * led to a verdict carries it.
   */
  private traceAppliedEvents(entries: readonly DecodedEntry[], records: Map<string, OutcomeRecord>, startedMs: number): void {
    const batch = trace.getActiveSpan()?.spanContext();
    const startTime = performance.timeOrigin + startedMs;
    for (const entry of entries) {
      for (const { event, ref } of entry.events) {
        const parent = event.traceparent === undefined ? undefined : spanContextOf(event.traceparent);
        // Bit 0 of the trace flags: the request was sampled, so its trace is being recorded.
        if (!parent || (parent.traceFlags & 1) === 0) continue;
        const status = records.get(ref)?.status;
        const span = tracer().startSpan(
          "apply event",
          {
            startTime,
            links: batch ? [{ context: batch }] : [],
            attributes: { "verdict.shard": this.deps.shard, "verdict.entry_id": entry.id, "verdict.outcome.status": status ?? "unknown" },
          },
          trace.setSpanContext(context.active(), parent),
        );
        span.end();
      }
    }
  }

  /** The batch's events per account and minute received (the dashboard's ingest chart): one write per pair. */
  private countIngest(commit: BatchCommit, entries: readonly DecodedEntry[]): void {
    const { keys, shard } = this.deps;
    const events = entries.flatMap((entry) => entry.events.map(({ event }) => event));
    for (const [accountId, minutes] of countByMinute(events)) {
      for (const [minute, n] of minutes) commit.count(keys.ingestCounts(shard, accountId, hourOfMinute(minute)), String(minute), n, INGEST_COUNT_TTL_MS);
    }
  }

  /** The fold's writes as operations of this shard's commit; dead letters are counted by code for the metrics. */
  private commitWrites(commit: BatchCommit, deadLettered: Map<string, number>, records: ReadonlyMap<string, OutcomeRecord>): FoldWrites {
    const { keys, shard } = this.deps;
    // Built once per outcome per batch: the same string then also hashes once in the commit's key table.
    const logKeys = new Map<string, string>();
    return {
      ack: (entryId) => commit.ack(entryId),
      log: (ref, event, bytes) => {
        let key = logKeys.get(ref);
        if (key === undefined) {
          key = keys.eventLog(shard, event.accountId, event.outcomeKey);
          logKeys.set(ref, key);
        }
        commit.log(key, bytes);
      },
      billable: (event, customerKey) => commit.count(keys.usage(shard, event.accountId), customerKey, 1),
      deadLetter: (letter) => {
        const whole = packDeadLetter(letter);
        const kept = boundedLetter(letter, whole.length, this.deps.deadLetterMaxEventBytes);
        const bytes = kept === letter ? whole : packDeadLetter(kept);
        commit.append(keys.deadLetters(shard, letter.event.accountId), bytes);
        // Follows the append, so the archiver learns which letter the whole event belongs to.
        if (kept !== letter && this.deps.archive) commit.queueForArchive(keys.deadLetterWholeEvents(shard), whole);
        commit.index(keys.deadLetterAccounts(shard), letter.event.accountId);
        commit.outbox(keys.webhookOutbox(shard), packNotification({ kind: "dead_letter", accountId: letter.event.accountId, bytes }), keys.webhookAccounts(shard), letter.event.accountId);
        deadLettered.set(letter.code, (deadLettered.get(letter.code) ?? 0) + 1);
        commit.rollups.deadLetter(letter, records.get(outcomeRef(letter.event.accountId, letter.event.outcomeKey)));
      },
      orphan: (event) => commit.expireOrphan(keys.idempotency(shard, event.accountId, event.outcomeKey), keys.outcome(shard, event.accountId, event.outcomeKey), ORPHAN_IDEMPOTENCY_TTL_MS),
      charge: (record, charge) => this.charge(commit, record, charge),
    };
  }

  /** The entry's events that decode to an envelope; one that does not is logged, counted and skipped. */
  private decode(entry: StreamEntry): DecodedEntry {
    const events: EntryEvent[] = [];
    entry.events.forEach((bytes, index) => {
      let event: EventEnvelope;
      try {
        event = unpackEnvelope(bytes);
      } catch {
        this.malformed(entry.id, index);
        return;
      }
      events.push({ index, event, ref: outcomeRef(event.accountId, event.outcomeKey), bytes });
    });
    return { id: entry.id, size: entry.events.length, events };
  }

  private charge(commit: BatchCommit, record: OutcomeRecord, charge: ChargeRecord): void {
    const bytes = Buffer.from(JSON.stringify(charge));
    commit.append(this.deps.keys.charges(this.deps.shard, record.accountId), bytes);
    commit.outbox(this.deps.keys.webhookOutbox(this.deps.shard), packNotification({ kind: "charge", accountId: record.accountId, bytes }), this.deps.keys.webhookAccounts(this.deps.shard), record.accountId);
    // Queued in the same commit as the charge itself, so the archive gets every charge exactly once in effect,
    // with the position of its entry in the charge stream (the listing's order).
    if (this.deps.archive) {
      const queued: QueuedCharge = { account_id: record.accountId, charge };
      commit.queueForArchive(this.deps.keys.chargesToArchive(this.deps.shard), Buffer.from(JSON.stringify(queued)));
    }
    commit.rollups.charge(record.accountId, charge);
    this.deps.metrics.charges.inc();
  }

  /** Adds snapshot, due-time and index writes for every changed outcome, and what the batch taught the score models. */
  private stage(commit: BatchCommit, changed: Map<string, ChangedOutcome>, scoring: BatchScoring): void {
    const { keys, shard } = this.deps;
    // Built once per account per batch: the same strings then also hash once in the commit's key table.
    const scoreIndexes = new Map<string, Record<ScoreName, string>>();
    const scoreIndexOf = (accountId: string, name: ScoreName): string => {
      let indexes = scoreIndexes.get(accountId);
      if (!indexes) {
        indexes = { trajectory: keys.scoreIndex(shard, accountId, "trajectory"), anomaly: keys.scoreIndex(shard, accountId, "anomaly"), novelty: keys.scoreIndex(shard, accountId, "novelty") };
        scoreIndexes.set(accountId, indexes);
      }
      return indexes[name];
    };
    for (const { cohort, delta } of scoring.deltas) {
      if (delta.empty) continue;
      const { counts, sums } = delta.pairs();
      commit.model(keys.scoreModel(shard, cohort.accountId, cohort.kind, cohort.key), counts, sums, SCORE_MODEL_TTL_MS);
    }
    for (const [ref, { record, created, dueBefore, scoresBefore, openBefore }] of changed) {
      const key = keys.outcome(shard, record.accountId, record.key);
      const snapshot = packOutcome(record);
      this.deps.metrics.snapshotBytes.observe(snapshot.length);
      if (created) {
        commit.create(key, snapshot, keys.idempotency(shard, record.accountId, record.key));
        commit.index(keys.outcomeIndex(shard, record.accountId), indexMember(record.createdAt, record.key));
      } else {
        commit.set(key, snapshot);
      }
      // The verdict's webhook notification commits with the verdict itself (docs/webhooks.md).
      if (openBefore && record.status !== "OPEN") {
        commit.outbox(keys.webhookOutbox(shard), packNotification({ kind: "outcome", accountId: record.accountId, bytes: snapshot }), keys.webhookAccounts(shard), record.accountId);
        // Retention runs from the commit of the verdict, in wall time (the business clock may be frozen).
        if (this.deps.archive) commit.zadd(keys.settled(shard), Date.now(), ref);
      }
      // Most events leave the due time where it was (no deadline, or none that moved): no index write.
      const due = dueAtOf(record);
      if (due !== dueBefore) commit.due(ref, due);
      for (const name of SCORE_NAMES) {
        const before = scoresBefore?.[name] ?? null;
        const after = record.scores[name];
        if (before === after) continue;
        const index = scoreIndexOf(record.accountId, name);
        if (before !== null) commit.unindex(index, scoreMember(before, record.key));
        if (after !== null) {
          commit.index(index, scoreMember(after, record.key));
          this.deps.metrics.observeScore(name, after);
        }
      }
      if (record.status !== "OPEN") this.deps.metrics.verdicts.inc({ status: record.status });
      if (created) commit.rollups.opened(record);
      if (openBefore && record.status !== "OPEN") commit.rollups.verdict(record);
    }
    this.deps.openQuota.stage(commit, changed);
  }

  private async execute(commit: BatchCommit): Promise<CommitResult> {
    if (!tracingEnabled()) return this.commit(commit);
    return tracer().startActiveSpan("shard.commit", { attributes: { "verdict.shard": this.deps.shard } }, async (span) => {
      try {
        const result = await this.commit(commit);
        span.setAttribute("verdict.commit.result", result.ok ? "ok" : result.reason);
        return result;
      } finally {
        span.end();
      }
    });
  }

  private async commit(commit: BatchCommit): Promise<CommitResult> {
    stageRollups(commit, this.deps.keys, this.deps.shard);
    this.deps.cork.hold();
    const result = await commit.execute(
      (keys, args) => this.deps.scripts.run("commit", keys, args),
      this.deps.leaseValue,
      CONSUMER_GROUP,
    );
    if (!result.ok && result.reason === "lease-lost") {
      this.leaseLost();
      return result;
    }
    if (!result.ok && result.reason === "foreign-pending") {
      this.deps.logger.warn({ shard: this.deps.shard }, "stream entries pending under another consumer (a stale reader); claiming them before committing");
      await this.claimOrphans();
      return result;
    }
    if (!result.ok) {
      this.deps.logger.info({ shard: this.deps.shard, key: result.reason === "create-conflict" ? result.key : undefined }, "outcome created concurrently, or the open-outcome quota filled meanwhile; reprocessing batch");
      return result;
    }
    // Committed on the master; until the replicas hold it a failover could undo it, so memory (which is
    // ahead of what would survive) is not trusted: the caller reloads from Redis, as after any doubt.
    const { client, keys, shard, replicaAcks, replicaAckTimeoutMs } = this.deps;
    if (!(await replicated(client, keys.lease(shard), replicaAcks, replicaAckTimeoutMs))) {
      this.deps.logger.warn({ shard, replicas: replicaAcks }, "commit not acknowledged by enough replicas; reloading");
      return { ok: false, reason: "unreplicated" };
    }
    return result;
  }

  /**
   * Takes the entries pending under other consumers; when there were any, they are read (with ours, in
   * stream order) before anything new.
   */
  private async claimOrphans(): Promise<void> {
    const claimed = await this.reads.claimOrphans();
    if (claimed === "lease-lost") this.leaseLost();
    else if (claimed > 0 || !this.tookOver) this.pendingFirst = true;
  }

  /** Another worker has the shard: nothing more is read or written; the worker stops this actor. */
  private leaseLost(): void {
    this.stopping = true;
    this.deps.onLeaseLost(this.deps.shard);
  }

  /** Makes every verdict due by `until`: IDLE quiescence and settlement, from the shard's due-time index. */
  private async settleDue(until: number): Promise<void> {
    const { client, keys, shard } = this.deps;
    // Bounded per tick: a due time that failed to move could otherwise spin here; the next tick goes on.
    for (let page = 0; page < MAX_DUE_PAGES_PER_TICK; page++) {
      const refs = await client.zrangebyscore(keys.due(shard), "-inf", until, "LIMIT", 0, DUE_PAGE);
      if (refs.length > 0 && !(await this.settlePage(refs, until))) return;
      if (refs.length < DUE_PAGE) break;
    }
    await this.prepareAhead(until);
  }

  /** Forces the verdicts of one page of due outcomes in one commit; false when it did not commit. */
  private async settlePage(refs: string[], until: number): Promise<boolean> {
    const { shard } = this.deps;
    const records = await this.load(refs);
    await this.deps.models.ensure(distinctCohorts(records.values()));
    const scoring = new BatchScoring((cohort) => this.deps.models.model(cohort));
    const commit = this.newCommit();
    const changed = new Map<string, ChangedOutcome>();
    for (const ref of refs) {
      const record = records.get(ref);
      if (!record || record.status !== "OPEN") {
        commit.due(ref, null);
        continue;
      }
      const dueBefore = dueAtOf(record);
      const scoresBefore = scoresOf(record.scores);
      const passed = passTime(record, until);
      if (passed.charge) this.charge(commit, record, passed.charge);
      if (record.status !== "OPEN") scoring.verdict(record);
      changed.set(ref, { record, created: false, dueBefore, scoresBefore, openBefore: true });
    }
    this.stage(commit, changed, scoring);
    const result = await this.execute(commit);
    if (!result.ok) {
      for (const ref of refs) this.deps.hot.delete(shard, ref);
      return false;
    }
    for (const [ref, { record }] of changed) this.deps.hot.set(shard, ref, record);
    return true;
  }

  /**
   * Looks DUE_LOOKAHEAD_MS past `until`: the outcomes due then are loaded into memory now (the actor is the
   * only writer of their snapshots, so they stay what Redis holds), and the soonest of them gets a timer
   * that requests a tick at its due time plus the clock's grace.
   */
  private async prepareAhead(until: number): Promise<void> {
    const { client, keys, shard, hot } = this.deps;
    const ahead = await client.zrangebyscore(keys.due(shard), `(${until}`, until + DUE_LOOKAHEAD_MS, "WITHSCORES", "LIMIT", 0, MAX_PRELOADED);
    if (ahead.length === 0) return;
    this.dueWake.schedule(Number(ahead[1]) + CLOCK_GRACE_MS);
    const refs: string[] = [];
    for (let i = 0; i < ahead.length; i += 2) if (!hot.get(shard, ahead[i]!)) refs.push(ahead[i]!);
    for (let i = 0; i < refs.length; i += DUE_PAGE) {
      for (const [ref, record] of await this.load(refs.slice(i, i + DUE_PAGE))) hot.set(shard, ref, record);
    }
  }
}
