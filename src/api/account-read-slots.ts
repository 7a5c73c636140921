// How many of one account's costly reads run at once in this process. A large read is added up in turns of
// the event loop, and every request of every account waits behind the turns already queued: unbounded, one
// token holder's parallel reads would set everyone's latency (docs/performance.md, Costly reads beside
// another account's events). Past its slots an account's reads wait their turn, and past a short queue
// they are refused, so a dashboard's few parallel reads still answer.
import { readsExceeded } from "../errors/quota-exceeded.js";

/** Reads that may wait for a slot, per slot: beyond them a read is refused at once. */
export const WAITING_PER_SLOT = 4;

interface AccountSlots {
  running: number;
  waiting: Array<() => void>;
}

export class AccountReadSlots {
  private readonly accounts = new Map<string, AccountSlots>();

  /** `slots`: reads one account runs at once (options.quotas.insightReads). */
  constructor(private readonly slots: number) {}

  /** Runs `read` once one of the account's slots is free; throws QUOTA_EXCEEDED (429) when too many wait. */
  async run<T>(accountId: string, read: () => Promise<T>): Promise<T> {
    let account = this.accounts.get(accountId);
    if (!account) this.accounts.set(accountId, (account = { running: 0, waiting: [] }));
    if (account.running >= this.slots) {
      if (account.waiting.length >= this.slots * WAITING_PER_SLOT) throw readsExceeded(this.slots);
      await new Promise<void>((resolve) => account.waiting.push(resolve));
    } else account.running++;
    try {
      return await read();
    } finally {
      this.release(accountId, account);
    }
  }

  /** Hands the slot to the next waiting read, or frees it (and forgets an account with nothing running). */
  private release(accountId: string, account: AccountSlots): void {
    const next = account.waiting.shift();
    if (next) return next();
    account.running--;
    if (account.running === 0) this.accounts.delete(accountId);
  }
}
