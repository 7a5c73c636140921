// Stages a commit's insight rollups (docs/insights.md) as operations of the same commit: one per account
// and hour it touched, so the counts commit, or not, with what they count, and a re-sent commit (fenced by
// its id) adds nothing twice.
import { rollupMember } from "../outcomes/insight-rollup.js";
import type { Keys } from "../redis/keys.js";
import type { BatchCommit } from "./batch-commit.js";

export function stageRollups(commit: BatchCommit, keys: Keys, shard: number): void {
  const index = keys.insightRollupHours(shard);
  for (const { accountId, hour, counts, texts } of commit.rollups) {
    const flatCounts: (string | number)[] = [];
    for (const [field, by] of counts) flatCounts.push(field, by);
    const flatTexts: string[] = [];
    for (const [field, text] of texts) flatTexts.push(field, text);
    commit.rollup(keys.insightRollup(shard, accountId, hour), index, rollupMember(hour, accountId), hour, flatCounts, flatTexts);
  }
}
