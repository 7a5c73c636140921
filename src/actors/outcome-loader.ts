// What a batch or a settle needs before it runs: the outcomes it touches (from memory, else one MGET), those
// of them the archive holds instead, the batch's outcome creator under the open-outcome quota, and the
// score models of every cohort involved.
import type { ArchivedOutcome } from "../archive-read/archived-outcomes.js";
import type { Cohort } from "../outcomes/outcome-scores.js";
import { unpackOutcome, type OutcomeRecord } from "../outcomes/outcome-record.js";
import { parseOutcomeRef } from "../outcomes/outcome-ref.js";
import type { ActorServices } from "./actor-deps.js";
import type { OutcomeCreator } from "./batch-fold.js";
import { distinctCohorts } from "./batch-scoring.js";
import type { OpenOutcomeQuota } from "./open-outcome-quota.js";
import type { DecodedEntry } from "./shard-entries.js";

export interface OutcomeLoaderDeps {
  shard: number;
  services: Pick<
    ActorServices,
    "client" | "cork" | "keys" | "hot" | "metrics" | "archive" | "models" | "outcomeCreator"
  >;
  openQuota: OpenOutcomeQuota;
}

/** A batch's outcomes as committed, and what its fold needs to create new ones. */
export interface BatchInputs {
  /** By ref: the outcomes Redis holds (outcomes the fold creates are added). */
  records: Map<string, OutcomeRecord>;
  /** By ref: outcomes of the batch that moved to the archive. */
  archived: Map<string, ArchivedOutcome>;
  creator: OutcomeCreator;
}

export class OutcomeLoader {
  constructor(private readonly deps: OutcomeLoaderDeps) {}

  /**
   * Outcomes not in memory are fetched in one MGET (a shard's keys share a slot); with `snapshots`, the
   * bytes of those fetched are kept there by ref.
   */
  async load(refs: Iterable<string>, snapshots?: Map<string, Buffer>): Promise<Map<string, OutcomeRecord>> {
    const { shard } = this.deps;
    const { client, cork, keys, hot, metrics } = this.deps.services;
    const loaded = new Map<string, OutcomeRecord>();
    const missing: string[] = [];
    for (const ref of refs) {
      const record = hot.get(shard, ref);
      if (record) loaded.set(ref, record);
      else missing.push(ref);
    }
    if (missing.length > 0) {
      cork.hold();
      const found = await client.mgetBuffer(
        ...missing.map((ref) => {
          const { accountId, outcomeKey } = parseOutcomeRef(ref);
          return keys.outcome(shard, accountId, outcomeKey);
        }),
      );
      missing.forEach((ref, i) => {
        const bytes = found[i];
        if (!bytes) return;
        loaded.set(ref, unpackOutcome(bytes));
        snapshots?.set(ref, bytes);
      });
      metrics.snapshotLoads.inc(missing.length);
    }
    return loaded;
  }

  /** Loads a settle's outcomes and the score models of their cohorts (`snapshots` as for load). */
  async loadDue(refs: readonly string[], snapshots?: Map<string, Buffer>): Promise<Map<string, OutcomeRecord>> {
    const records = await this.load(refs, snapshots);
    await this.deps.services.models.ensure(distinctCohorts(records.values()));
    return records;
  }

  /** Loads a batch's outcomes, finds those archived, and readies creation and the score models. */
  async loadBatch(entries: readonly DecodedEntry[]): Promise<BatchInputs> {
    const { services, openQuota } = this.deps;
    const refs = new Set<string>();
    for (const entry of entries) for (const { ref } of entry.events) refs.add(ref);
    const records = await this.load(refs);
    const archived = await this.archivedAmong(refs, records);
    const unguarded = services.outcomeCreator();
    // Accounts whose events may open outcomes (the open-outcome quota reads their counts), and the cohorts
    // of the batch's outcomes, new ones included.
    const creating = new Set<string>();
    const cohorts: Cohort[] = distinctCohorts(records.values());
    for (const entry of entries) {
      for (const { event, ref } of entry.events) {
        if (event.variant !== "B" || records.has(ref) || archived.has(ref)) continue;
        unguarded.prefetch(event);
        creating.add(event.accountId);
        if (event.agentKey !== undefined)
          cohorts.push({ accountId: event.accountId, kind: "agent", key: event.agentKey });
      }
    }
    const [creator] = await Promise.all([openQuota.guard(unguarded, creating), services.models.ensure(cohorts)]);
    return { records, archived, creator };
  }

  /**
   * The batch's outcomes missing from Redis that the archive holds: an event to one must neither reopen
   * nor change it. Only outcomes Redis lacks, and of those only the ones the shard's filter may hold
   * (new outcomes mostly are not), are looked up, in one query per batch; the archiver deletes from Redis
   * only after PostgreSQL committed, and sets the filter's bits as it deletes, so nothing falls between.
   */
  private async archivedAmong(
    refs: Set<string>,
    records: Map<string, OutcomeRecord>,
  ): Promise<Map<string, ArchivedOutcome>> {
    const { archive } = this.deps.services;
    if (!archive) return new Map();
    const missing = [...refs].filter((ref) => !records.has(ref));
    if (missing.length === 0) return new Map();
    const maybe = await archive.filter.mayHold(this.deps.shard, missing);
    return maybe.length === 0 ? new Map() : archive.outcomes.lookup(maybe.map(parseOutcomeRef));
  }
}
