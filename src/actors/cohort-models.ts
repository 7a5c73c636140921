// A worker's merged cohort models: each the sum of the shards' partial hashes, re-read every
// scoreRefreshMs for the cohorts its actors scored since the last refresh; the others are dropped and read
// again (awaited) when next needed, so the refresh's work follows the active cohorts, not all ever seen. Every actor of the
// worker scores against these copies, never against its own uncommitted training: that is what makes a
// score the same whichever shard computes it, and why what a batch teaches shows up one refresh later.
import type { Cohort } from "../outcomes/outcome-scores.js";
import { cohortId } from "../outcomes/outcome-scores.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { EMPTY_MODEL, mergeModels, type CohortModel } from "../scores/cohort-model.js";
import { Periodic } from "../runtime/periodic.js";
import type { Logger } from "../telemetry/logger.js";

export interface CohortModelsDeps {
  client: RedisClient;
  keys: Keys;
  shards: number;
  refreshMs: number;
  logger: Logger;
}

interface Held {
  cohort: Cohort;
  model: CohortModel;
  /** Scored since the last refresh: refreshed, else dropped. */
  used: boolean;
  /** The first load, while it runs. */
  loading?: Promise<void>;
}

export class CohortModels {
  private readonly held = new Map<string, Held>();
  private readonly refreshes: Periodic;

  constructor(private readonly deps: CohortModelsDeps) {
    this.refreshes = new Periodic(() => this.refresh(), { intervalMs: deps.refreshMs });
  }

  start(): void {
    this.refreshes.start();
  }

  stop(): Promise<void> {
    return this.refreshes.stop();
  }

  /** The model to score against; a cohort not held yet scores against the empty model while it loads. */
  model(cohort: Cohort): CohortModel {
    const held = this.hold(cohort);
    held.used = true;
    return held.model;
  }

  /** Loads the cohorts not held yet, so a batch's first scores see their models. */
  async ensure(cohorts: Iterable<Cohort>): Promise<void> {
    const loads: Promise<void>[] = [];
    for (const cohort of cohorts) {
      const held = this.hold(cohort);
      // Marked used now, so a refresh while the batch runs keeps it rather than dropping it.
      held.used = true;
      if (held.loading) loads.push(held.loading);
    }
    await Promise.all(loads);
  }

  private hold(cohort: Cohort): Held {
    const id = cohortId(cohort);
    let held = this.held.get(id);
    if (!held) {
      const fresh: Held = { cohort, model: EMPTY_MODEL, used: true };
      fresh.loading = this.load(fresh).finally(() => delete fresh.loading);
      this.held.set(id, fresh);
      held = fresh;
    }
    return held;
  }

  /** Sums the shards' partial models of the cohort; on a Redis error the held model stays as it was. */
  private async load(held: Held): Promise<void> {
    const { client, keys, shards } = this.deps;
    const { accountId, kind, key } = held.cohort;
    try {
      const partials = await Promise.all(
        Array.from({ length: shards }, (_, shard) => client.hgetall(keys.scoreModel(shard, accountId, kind, key))),
      );
      held.model = mergeModels(partials);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, cohort: held.cohort },
        "could not read a cohort's score model; scoring against the last one read",
      );
    }
  }

  private async refresh(): Promise<void> {
    const active: Held[] = [];
    for (const [id, held] of this.held) {
      if (held.loading) continue;
      if (!held.used) this.held.delete(id);
      else active.push(held);
      held.used = false;
    }
    await Promise.all(active.map((held) => this.load(held)));
  }
}
