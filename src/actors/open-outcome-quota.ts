// The open-outcome quota on a shard's worker side: a Variant B event that would open an outcome past its
// account's share on the shard is dead-lettered (QUOTA_EXCEEDED), and each commit moves the account's count
// by the outcomes it opened and closed, refusing to commit if outcomes opened through the API meanwhile
// left no room (the batch is then folded again with the new count).
import { isTerminalRejection, terminalRejection } from "../outcomes/terminal-rejection.js";
import type { RedisClient } from "../redis/client.js";
import type { BatchCommit } from "./batch-commit.js";
import type { ChangedOutcome, OutcomeCreator } from "./batch-fold.js";

export class OpenOutcomeQuota {
  /**
   * `key` is the shard's hash of open outcomes per account; `perShard` the share of `quota` (the account's
   * open outcomes allowed) that one shard holds.
   */
  constructor(
    private readonly client: RedisClient,
    private readonly key: string,
    private readonly quota: number,
    private readonly perShard: number,
  ) {}

  /**
   * The batch's creator, refusing creations past the share of each account that may create (the counts are
   * read now, and the batch's own creations added as it goes).
   */
  async guard(creator: OutcomeCreator, accounts: ReadonlySet<string>): Promise<OutcomeCreator> {
    if (accounts.size === 0) return creator;
    const names = [...accounts];
    const counts = await this.client.hmget(this.key, ...names);
    const open = new Map(names.map((accountId, i) => [accountId, Number(counts[i] ?? 0)]));
    return {
      prefetch: (event) => creator.prefetch(event),
      create: async (event) => {
        const count = open.get(event.accountId) ?? 0;
        if (count >= this.perShard) {
          return terminalRejection(
            "QUOTA_EXCEEDED",
            `the account has its quota of ${this.quota} open outcomes open (${this.perShard} on this outcome's shard): outcome ${event.outcomeKey} was not opened`,
          );
        }
        const created = await creator.create(event);
        if (!isTerminalRejection(created)) open.set(event.accountId, count + 1);
        return created;
      },
    };
  }

  /** Adds each account's change of open outcomes on the shard (opened minus settled) to the commit. */
  stage(commit: BatchCommit, changed: ReadonlyMap<string, ChangedOutcome>): void {
    const delta = new Map<string, number>();
    for (const { record, created, openBefore } of changed.values()) {
      const by = (created ? 1 : 0) - (openBefore && record.status !== "OPEN" ? 1 : 0);
      if (by !== 0) delta.set(record.accountId, (delta.get(record.accountId) ?? 0) + by);
    }
    for (const [accountId, by] of delta) {
      if (by > 0) commit.openQuota(this.key, accountId, by, this.perShard);
      else if (by < 0) commit.count(this.key, accountId, by);
    }
  }
}
