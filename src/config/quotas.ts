// Per-account quotas: how much one account may store and send, so no tenant can grow Redis without bound or
// take the ingress from the others (docs/configuration.md, Quotas; docs/api.md, Quotas).

export interface QuotaOptions {
  /** Tasks per account. @default 1000 */
  tasks: number;
  /** Agents per account. @default 1000 */
  agents: number;
  /** Customers per account. @default 100_000 */
  customers: number;
  /** Rate cards per account. @default 1000 */
  rateCards: number;
  /** Webhook endpoints per account. @default 20 */
  webhookEndpoints: number;
  /**
   * Open outcomes per account, enforced per shard: each shard holds at most ceil(openOutcomes / shards) of
   * the account's open outcomes (docs/api.md, Quotas). @default 250_000
   */
  openOutcomes: number;
  /** Events per second per account, over every ingress process together (a token bucket). @default 5000 */
  eventsPerSecond: number;
  /** Events an idle account may send at once before the rate applies: the bucket's size. @default 10_000 */
  eventBurst: number;
  /** `GET /v1/insights` requests of one account running at once in each ingress process. @default 2 */
  insightReads: number;
}

/** The quotas one `QUOTA_EXCEEDED` answer can name (its `quota` field). */
export type QuotaName =
  | "tasks"
  | "agents"
  | "customers"
  | "rate_cards"
  | "webhook_endpoints"
  | "open_outcomes"
  | "events_per_second"
  | "insight_reads";

export const DEFAULT_QUOTAS: Readonly<QuotaOptions> = Object.freeze({
  tasks: 1000,
  agents: 1000,
  customers: 100_000,
  rateCards: 1000,
  webhookEndpoints: 20,
  openOutcomes: 250_000,
  eventsPerSecond: 5000,
  eventBurst: 10_000,
  insightReads: 2,
});

/** Each quota's setting, for the environment and for the messages that name one. */
export const QUOTA_SETTINGS: Readonly<Record<keyof QuotaOptions, string>> = Object.freeze({
  tasks: "VERDICT_QUOTA_TASKS",
  agents: "VERDICT_QUOTA_AGENTS",
  customers: "VERDICT_QUOTA_CUSTOMERS",
  rateCards: "VERDICT_QUOTA_RATE_CARDS",
  webhookEndpoints: "VERDICT_QUOTA_WEBHOOK_ENDPOINTS",
  openOutcomes: "VERDICT_QUOTA_OPEN_OUTCOMES",
  eventsPerSecond: "VERDICT_QUOTA_EVENTS_PER_SECOND",
  eventBurst: "VERDICT_QUOTA_EVENT_BURST",
  insightReads: "VERDICT_QUOTA_INSIGHT_READS",
});

/**
 * An account's open outcomes allowed on one shard: its quota divided over the shards, rounded up. A shard's
 * count lives in the shard's slot, where the scripts that open and close outcomes can keep it atomically.
 */
export function openOutcomesPerShard(quota: number, shards: number): number {
  return Math.ceil(quota / shards);
}

/** Problems with the quotas, each naming its setting; empty when they are usable. */
export function quotaProblems(quotas: QuotaOptions): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(QUOTA_SETTINGS) as (keyof QuotaOptions)[]) {
    const value = quotas[name];
    if (!Number.isInteger(value) || value < 1 || value > 1_000_000_000)
      problems.push(`${QUOTA_SETTINGS[name]} must be an integer from 1 to 1000000000 (got ${value})`);
  }
  return problems;
}
