// Stages a commit's insight rollups (docs/insights.md) as operations of the same commit: one per account
// and day it touched, so the counts commit, or not, with what they count, and a re-sent commit (fenced by
// its id) adds nothing twice.
import { rollupMember } from "../outcomes/insight-rollup.js";
import type { Keys } from "../redis/keys.js";
import type { BatchCommit } from "./batch-commit.js";

export function stageRollups(commit: BatchCommit, keys: Keys, shard: number): void {
  const index = keys.insightRollupDays(shard);
  for (const { accountId, day, cells } of commit.rollups) {
    const entries: Array<[string, number, (string | number)[], string[]]> = [];
    for (const { field, hourOfDay, counts, texts } of cells.values())
      entries.push([field, hourOfDay, [...counts].flat(), [...texts].flat()]);
    commit.rollup(keys.insightRollupDay(shard, accountId, day), index, rollupMember(day, accountId), day, entries);
  }
}
