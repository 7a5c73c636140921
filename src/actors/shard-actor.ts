// One shard's actor: the only writer of its outcomes while it holds the shard lease. Its loop takes the
// shard over, then reads the shard stream through a consumer group, folds each batch of events into the
// outcomes they name and commits the batch's effect atomically with its XACK (batch-apply.ts); when the
// monitor ticks and the stream is drained, it lets time pass on the outcomes due (settlement, IDLE).
import { entryTimeMs } from "../streams/entry-id.js";
import type { OutcomeRecord } from "../outcomes/outcome-record.js";
import { countVerdicts } from "./actor-metrics.js";
import { traced } from "./actor-tracing.js";
import type { ShardActorDeps } from "./actor-deps.js";
import { BatchApplier } from "./batch-apply.js";
import type { BatchCommit } from "./batch-commit.js";
import type { ChangedOutcome } from "./batch-fold.js";
import { BatchScoring } from "./batch-scoring.js";
import { CommitStaging } from "./commit-staging.js";
import { ensureConsumerGroup } from "./consumer-group.js";
import { DeliveryAttempts } from "./delivery-attempts.js";
import { DueLookahead } from "./due-lookahead.js";
import { DuePages } from "./due-pages.js";
import { DueWake } from "./due-wake.js";
import { EntrySize } from "./entry-size.js";
import { FencedCommit } from "./fenced-commit.js";
import { OutcomeLoader } from "./outcome-loader.js";
import { PreparedVerdicts } from "./prepared-verdicts.js";
import { afterRead, type ReadPhase } from "./read-phase.js";
import { ReadSize } from "./read-size.js";
import { SettleFlight } from "./settle-flight.js";
import { streamEntries, type StreamEntry } from "./shard-entries.js";
import { ShardReader } from "./shard-reader.js";

/** Longest a read of new entries waits for one, so the loop can settle and stop. */
const BLOCK_MS = 100;
/** Reads of fewer events than this are paced (see pace): a commit's fixed cost is spread enough above it. */
const PACED_BELOW_EVENTS = 100;
/** Time passes only up to this long ago, so an event stamped at the edge but still in flight to the stream is not overtaken by a verdict. */
const CLOCK_GRACE_MS = 100;
/**
 * Due outcomes read, and forced in one commit, at a time: a storm's commit pays its fixed cost (the fencing
 * check, the round trip) once per page while holding Redis only briefly, and at ~200 KB (a verdict writes
 * ~550 B) it leaves a unix socket (npm start's embedded Redis) in one write, so Redis starts on it at once.
 */
const DUE_PAGE = 350;
/** Up to 100,000 due outcomes per shard and tick, so a due time that fails to move cannot hold a tick. */
const MAX_DUE_PAGES_PER_TICK = Math.ceil(100_000 / DUE_PAGE);
/** Bytes of snapshots a shard prepares ahead of their deadline (prepared-verdicts.ts). */
const MAX_PREPARED_BYTES = 16 * 1024 * 1024;
/** How often an idle shard looks for entries a stale reader took (see claim-orphans.lua). */
const IDLE_CLAIM_INTERVAL_MS = 1000;
/** Longest a requested tick waits for the stream to drain. */
const MAX_SETTLE_DELAY_MS = 2000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class ShardActor {
  private stopping = false;
  private running: Promise<void> | undefined;
  private phase: ReadPhase = "takeover";
  private tickRequested = false;
  /** When due verdicts were last made (real time), so a shard that never drains still makes them. */
  private lastSettledAt = Date.now();
  /** When entries pending under other consumers were last looked for while the shard was idle. */
  private lastIdleClaimAt = Date.now();
  private readonly attempts: DeliveryAttempts;
  /** Events per stream entry, so a read of `entrySize.entriesFor(n)` entries holds about n events. */
  private readonly entrySize = new EntrySize();
  private readonly readSize: ReadSize;
  private readonly reads: ShardReader;
  /** Requests a tick at the soonest due time a settle saw ahead. */
  private readonly dueWake: DueWake;
  private readonly prepared = new PreparedVerdicts(MAX_PREPARED_BYTES);
  private readonly lookahead: DueLookahead;
  private readonly loader: OutcomeLoader;
  private readonly staging: CommitStaging;
  private readonly commits: FencedCommit;
  private readonly batches: BatchApplier;

  constructor(private readonly deps: ShardActorDeps) {
    const { lease, tuning, services, reader, openQuota } = deps;
    const { shard } = lease;
    this.attempts = new DeliveryAttempts(tuning.maxProcessingAttempts);
    this.dueWake = new DueWake(services.clock, () => {
      if (!this.stopping) this.requestTick();
    });
    this.readSize = new ReadSize(tuning.readBatchSize, tuning.readBatchMax);
    const { scripts, keys, logger, metrics } = services;
    this.reads = new ShardReader({
      reader,
      scripts,
      keys,
      shard,
      leaseValue: lease.value,
      workerId: lease.workerId,
      blockMs: BLOCK_MS,
    });
    this.loader = new OutcomeLoader({ shard, services, openQuota });
    this.staging = new CommitStaging({
      keys,
      shard,
      archiving: services.archive !== undefined,
      deadLetterMaxEventBytes: tuning.deadLetterMaxEventBytes,
      metrics,
    });
    this.commits = new FencedCommit({ lease, tuning, services, logger });
    this.batches = new BatchApplier({
      shard,
      services,
      tuning,
      attempts: this.attempts,
      loader: this.loader,
      staging: this.staging,
      commits: this.commits,
      malformed: this.malformed,
      scoring: () => this.scoring(),
      commitChanges: (commit, changed, scoring, records) => this.commitChanges(commit, changed, scoring, records),
      retry: () => {
        this.phase = "pending";
        this.lookahead.reset();
      },
    });
    this.lookahead = new DueLookahead({
      shard,
      services,
      loader: this.loader,
      wake: this.dueWake,
      prepared: this.prepared,
      scoring: () => this.scoring(),
      graceMs: CLOCK_GRACE_MS,
    });
  }

  get shard(): number {
    return this.deps.lease.shard;
  }

  start(): void {
    this.running = this.run().catch((error: unknown) => {
      this.deps.services.logger.error({ err: error, shard: this.shard }, "shard actor stopped on an error");
    });
  }

  /** Stops after the batch in hand is committed; the reader connection is closed to end a blocking read. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.dueWake.cancel();
    this.deps.reader.disconnect();
    await this.running;
    this.deps.services.hot.dropShard(this.shard);
  }

  /** The monitor's tick: due verdicts are made as soon as the stream is drained. */
  requestTick(): void {
    this.tickRequested = true;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.step();
      } catch (error) {
        if (this.stopping) break;
        this.recover(error);
        await sleep(200);
      }
    }
  }

  /** One turn of the loop: take the shard over, make the due verdicts, or read and apply a batch. */
  private async step(): Promise<void> {
    // Inside the loop, so Redis trouble at takeover is retried like any other, not an actor gone quiet
    // under a lease its worker keeps renewing.
    if (this.phase === "takeover") return this.takeOver();
    if (this.settleNow()) {
      const until = this.deps.services.clock() - CLOCK_GRACE_MS;
      return traced(this.shard, "shard.settle_due", {}, () => this.settleDue(until));
    }
    await this.readAndApply();
  }

  /** Redis trouble or a commit whose fate is unknown: memory may be ahead of Redis, so read again from the pending entries. */
  private recover(error: unknown): void {
    this.deps.services.logger.warn(
      { err: error, shard: this.shard },
      "shard batch failed; retrying from pending entries",
    );
    this.deps.services.hot.dropShard(this.shard);
    this.lookahead.reset();
    // The snapshots' last applied entry ids make reading pending entries again safe. A Redis that came back
    // without the stream's group (restarted with nothing on disk) is taken over again, which creates it.
    this.phase = String(error).includes("NOGROUP") ? "takeover" : "pending";
  }

  /** Creates the consumer group if need be and claims the earlier owners' pending entries, to be read first. */
  private async takeOver(): Promise<void> {
    await ensureConsumerGroup(this.deps.services.client, this.deps.services.keys.stream(this.shard));
    await this.claimOrphans();
    this.phase = "pending";
  }

  /**
   * Due verdicts wait for the stream to drain (events received before a deadline apply first), but not
   * forever: under sustained load a shard that always reads full batches settles anyway.
   */
  private settleNow(): boolean {
    if (!this.tickRequested) return false;
    const overdue = Date.now() - this.lastSettledAt > MAX_SETTLE_DELAY_MS;
    if (this.phase !== "drained" && !overdue) return false;
    this.tickRequested = false;
    this.lastSettledAt = Date.now();
    return true;
  }

  private async readAndApply(): Promise<void> {
    const readEvents = this.readSize.events;
    const count = this.entrySize.entriesFor(readEvents);
    const readAt = performance.now();
    const entries = await this.read(count);
    if (this.stopping) return;
    const full = entries.length >= count;
    this.readSize.observe(full, entries.length === 0 ? 0 : Date.now() - entryTimeMs(entries[0]!.id));
    this.phase = afterRead(this.phase, entries.length, count);
    if (entries.length === 0) return this.claimWhenIdle();
    // A full read is a backlog whose events are in memory already: fewer, larger commits drain it sooner.
    const runEvents = full ? this.readSize.max : readEvents;
    await traced(this.shard, "shard.batch", { "verdict.entries": entries.length }, () =>
      this.batches.apply(entries, runEvents),
    );
    if (!full) await this.pace(readAt, entries);
  }

  private async read(count: number): Promise<StreamEntry[]> {
    const raw =
      this.phase === "pending"
        ? await this.reads.pending(count)
        : await this.reads.fresh(count, this.dueWake.within(BLOCK_MS));
    const entries = streamEntries(raw, this.malformed);
    let events = 0;
    let largest = 0;
    for (const entry of entries) {
      events += entry.events.length;
      largest = Math.max(largest, entry.events.length);
    }
    this.entrySize.observe(entries.length, events, largest);
    return entries;
  }

  /** An entry (or one event of it) not written by the ingress: logged, counted and acknowledged without applying. */
  private readonly malformed = (entryId: string, index?: number): void => {
    this.deps.services.logger.error(
      { shard: this.shard, entry: entryId, index },
      "stream entry is not what the ingress writes; acknowledged without applying",
    );
    this.deps.services.metrics.malformedEntries.inc();
  };

  /**
   * After a small read (fewer than PACED_BELOW_EVENTS events) that did not fill, the next starts no sooner
   * than readIntervalMs after it: while events arrive one or a few at a time faster than the shard reads,
   * those of the interval share one read and one commit, most of whose cost is per commit (see
   * docs/performance.md, Read interval). A read that waited longer than the interval for its first entry is
   * a quiet shard: no wait then, so an event alone is applied as soon as it arrives. Larger reads are not
   * paced: their commit's cost is spread over their events already.
   */
  private async pace(readAt: number, entries: readonly StreamEntry[]): Promise<void> {
    const wait = this.deps.tuning.readIntervalMs - (performance.now() - readAt);
    if (wait <= 0 || this.stopping) return;
    let events = 0;
    for (const entry of entries) events += entry.events.length;
    if (events < PACED_BELOW_EVENTS) await sleep(wait);
  }

  /** Scores against the worker's merged cohort models, collecting what the commit teaches them. */
  private scoring(): BatchScoring {
    const { models } = this.deps.services;
    return new BatchScoring((cohort) => models.model(cohort));
  }

  /**
   * Stages the changed outcomes (snapshots, indexes, score models, the open-outcome quota) and runs the
   * fenced commit; batches and settles both end here. Afterwards memory agrees with Redis either way:
   * committed, every record of `records` is what Redis holds; not, they are forgotten, to be loaded again.
   */
  private commitChanges(
    commit: BatchCommit,
    changed: ReadonlyMap<string, ChangedOutcome>,
    scoring: BatchScoring,
    records: ReadonlyMap<string, OutcomeRecord>,
  ): Promise<boolean> {
    this.stageChanges(commit, changed, scoring);
    return this.runCommit(commit, changed, records);
  }

  private stageChanges(commit: BatchCommit, changed: ReadonlyMap<string, ChangedOutcome>, scoring: BatchScoring): void {
    // A batch's changes: what was prepared for these outcomes no longer follows (a settle took its own).
    this.prepared.forget(changed.keys());
    this.staging.changes(commit, changed, scoring);
    this.deps.openQuota.stage(commit, changed);
  }

  /** Runs a staged commit (the call leaves before the first await), then makes memory agree with Redis. */
  private async runCommit(
    commit: BatchCommit,
    changed: ReadonlyMap<string, ChangedOutcome>,
    records: ReadonlyMap<string, OutcomeRecord>,
  ): Promise<boolean> {
    const { hot, logger, metrics } = this.deps.services;
    const result = await this.commits.run(commit);
    if (result.ok) {
      for (const [ref, record] of records) hot.set(this.shard, ref, record);
      // Counted once committed: a refused commit is staged again, and would count its verdicts twice.
      countVerdicts(metrics, changed);
      return true;
    }
    this.forget(records);
    if (result.reason === "lease-lost") this.leaseLost();
    if (result.reason === "foreign-pending") {
      logger.warn(
        { shard: this.shard },
        "stream entries pending under another consumer (a stale reader); claiming them before committing",
      );
      await this.claimOrphans();
    }
    return false;
  }

  /** Records changed in memory but not committed: dropped, to be loaded again from Redis. */
  private forget(records: ReadonlyMap<string, OutcomeRecord>): void {
    for (const ref of records.keys()) this.deps.services.hot.delete(this.shard, ref);
  }

  /** Entries a stale reader took while no commit of ours came to refuse them (see claim-orphans.lua). */
  private async claimWhenIdle(): Promise<void> {
    if (Date.now() - this.lastIdleClaimAt < IDLE_CLAIM_INTERVAL_MS) return;
    this.lastIdleClaimAt = Date.now();
    await this.claimOrphans();
  }

  /** Takes the entries pending under other consumers; when there were any, they are read (with ours, in stream order) before anything new. */
  private async claimOrphans(): Promise<void> {
    const claimed = await this.reads.claimOrphans();
    if (claimed === "lease-lost") this.leaseLost();
    else if (claimed > 0) this.phase = "pending";
  }

  /** Another worker has the shard: nothing more is read or written; the worker stops this actor. */
  private leaseLost(): void {
    this.stopping = true;
    this.deps.lease.onLost(this.shard);
  }

  /**
   * Makes every verdict due by `until`: IDLE quiescence and settlement, from the shard's due-time index, a
   * page per commit, each page staged while the previous page's commit is in flight (due-pages.ts,
   * settle-flight.ts).
   */
  private async settleDue(until: number): Promise<void> {
    const { client, keys } = this.deps.services;
    const due = keys.due(this.shard);
    const pages = new DuePages(
      (offset, limit) => client.zrangebyscore(due, "-inf", until, "LIMIT", offset, limit),
      DUE_PAGE,
    );
    const flight = new SettleFlight();
    let refs = await pages.first();
    // Bounded per tick: a due time that failed to move could otherwise spin here; the next tick goes on.
    for (let page = 0; page < MAX_DUE_PAGES_PER_TICK && refs.length > 0; page++) {
      const { commit, changed, records } = await this.stagePage(refs, until);
      const next = pages.after(refs);
      if (!(await flight.send(() => this.runCommit(commit, changed, records)))) return this.forget(records);
      refs = await next;
    }
    if (!(await flight.landed())) return;
    if (this.prepared.size > 0) this.prepared.forgetDueBy(until);
    await this.lookahead.look(until);
  }

  /** Stages the verdicts of one page of due outcomes in one commit, in a turn of its own (staging-turns.ts). */
  private async stagePage(refs: readonly string[], until: number): Promise<StagedPage> {
    const records = await this.loader.loadDue(refs);
    await this.deps.services.turns.next();
    const scoring = this.scoring();
    const commit = this.commits.begin();
    const changed = this.staging.passTime(commit, refs, records, until, scoring, this.prepared);
    this.stageChanges(commit, changed, scoring);
    return { commit, changed, records };
  }
}

/** A page of due verdicts staged in its commit, not sent yet. */
interface StagedPage {
  commit: BatchCommit;
  changed: ReadonlyMap<string, ChangedOutcome>;
  records: ReadonlyMap<string, OutcomeRecord>;
}
