// A shard's look past the clock after each settle: the soonest due time ahead gets a wake of its own (the
// verdict is made then, not at the monitor's next whole-second tick), and the outcomes due in the window
// are loaded into memory and their verdicts prepared (prepared-verdicts.ts), so that a deadline many
// outcomes share costs at its instant little more than their commits.
import type { ActorServices } from "./actor-deps.js";
import type { BatchScoring } from "./batch-scoring.js";
import type { DueWake } from "./due-wake.js";
import type { OutcomeLoader } from "./outcome-loader.js";
import type { PreparedVerdicts } from "./prepared-verdicts.js";

/** How far past the clock the look-ahead reaches: a deadline is then first seen at the tick 4 s before it, time enough to load and prepare a storm of 100,000 before it comes. */
const DUE_LOOKAHEAD_MS = 5000;
/** Most outcomes one look loads ahead of their due time (they stay hot until then). */
const MAX_PRELOADED = 20_000;
/** Outcomes loaded by one MGET. */
const LOAD_PAGE = 2000;

export interface DueLookaheadDeps {
  shard: number;
  services: Pick<ActorServices, "client" | "keys" | "hot">;
  loader: OutcomeLoader;
  wake: DueWake;
  prepared: PreparedVerdicts;
  /** A throwaway scoring for the preparation (what it teaches is not committed). */
  scoring(): BatchScoring;
  /** Added to a due time for its wake: the settle's clock grace. */
  graceMs: number;
}

export class DueLookahead {
  /**
   * The end of the window the last look loaded: the next looks load only past it, so a storm's outcomes
   * are listed and loaded once, not again at every tick before their deadline. Outcomes the API opens
   * later inside a window already looked at are loaded at their deadline instead.
   */
  private loadedUntil = -Infinity;

  constructor(private readonly deps: DueLookaheadDeps) {}

  /** Memory is in doubt (a failed commit, a takeover): what was loaded ahead may be gone, so look again. */
  reset(): void {
    this.loadedUntil = -Infinity;
    this.deps.prepared.clear();
  }

  /** Looks DUE_LOOKAHEAD_MS past `until`, the instant the settle just made verdicts to. */
  async look(until: number): Promise<void> {
    const { client, keys } = this.deps.services;
    const due = keys.due(this.deps.shard);
    const end = until + DUE_LOOKAHEAD_MS;
    const soonest = await client.zrangebyscore(due, `(${until}`, end, "WITHSCORES", "LIMIT", 0, 1);
    if (soonest.length === 0) return;
    this.deps.wake.schedule(Number(soonest[1]) + this.deps.graceMs);
    const from = Math.max(until, this.loadedUntil);
    this.loadedUntil = end;
    const refs = await client.zrangebyscore(due, `(${from}`, end, "LIMIT", 0, MAX_PRELOADED);
    for (let i = 0; i < refs.length; i += LOAD_PAGE) await this.load(refs.slice(i, i + LOAD_PAGE));
  }

  /** Loads a page of outcomes due ahead, keeps them hot until their deadline, and prepares their verdicts. */
  private async load(refs: string[]): Promise<void> {
    const { shard, services, loader, prepared } = this.deps;
    const scoring = this.deps.scoring();
    const snapshots = new Map<string, Buffer>();
    for (const [ref, record] of await loader.loadDue(refs, snapshots)) {
      services.hot.set(shard, ref, record);
      prepared.prepare(ref, record, scoring, snapshots.get(ref));
    }
  }
}
