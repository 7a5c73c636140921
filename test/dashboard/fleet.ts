// A seeded fleet over a simulated week on a frozen business clock: a task whose outcomes confirm at their
// deadline or fail on one of three clauses, and an agent whose outcomes confirm at the event and charge two
// customers in two currencies. The expected numbers per UTC day come from the same table.
import { eventually, type TestApp } from "../support/app.js";

export const WEEK_START = Date.parse("2026-11-20T00:00:00.000Z");
/** The clock when the pages are read: the week is inside their last 30 days. */
export const READ_AT = Date.parse("2026-11-27T12:00:00.000Z");
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export const TASK_CONDITION = "NOT escalated AND NOT refunded AND COUNT(reply)<=3";
export const CLAUSES = { escalated: "NOT escalated", refunded: "NOT refunded", replies: "COUNT(reply)<=3" } as const;

/** One day of the fleet: task outcomes confirmed at the deadline, failed by each clause; agent jobs per customer. */
export interface FleetDay {
  confirmed: number;
  escalated: number;
  refunded: number;
  replies: number;
  acme: number;
  globex: number;
  /** Replies sent after the day's deadlines to its first task outcome, dead-lettered as OUTCOME_NOT_OPEN. */
  late?: number;
}

/** Per day of the week. */
export const WEEK: readonly FleetDay[] = [
  { confirmed: 3, escalated: 1, refunded: 1, replies: 0, acme: 1, globex: 0 },
  { confirmed: 4, escalated: 2, refunded: 0, replies: 1, acme: 0, globex: 1 },
  { confirmed: 0, escalated: 0, refunded: 0, replies: 0, acme: 0, globex: 0 },
  { confirmed: 5, escalated: 1, refunded: 2, replies: 0, acme: 2, globex: 1 },
  { confirmed: 2, escalated: 3, refunded: 1, replies: 1, acme: 1, globex: 0 },
  { confirmed: 6, escalated: 1, refunded: 1, replies: 0, acme: 0, globex: 2 },
  { confirmed: 1, escalated: 1, refunded: 1, replies: 1, acme: 1, globex: 0 },
];
export const ACME_EUR = 250;
export const GLOBEX_USD = 120;

export const dayStart = (day: number): string => new Date(WEEK_START + day * DAY_MS).toISOString();

export interface Clock {
  now: number;
}

type Api = (method: string, path: string, body?: unknown) => ReturnType<TestApp["request"]>;

async function ok(reply: ReturnType<Api>): Promise<void> {
  const { status, body } = await reply;
  if (status >= 300) throw new Error(`seeding refused: ${status} ${JSON.stringify(body)}`);
}

async function records(api: Api): Promise<void> {
  await ok(
    api("PUT", "/v1/tasks/support", { name: "Support ticket", condition: TASK_CONDITION, settlement_period: "1h" }),
  );
  await ok(
    api("PUT", "/v1/rate-cards/eur-card", {
      currency: "EUR",
      entries: [{ agent_key: "triage", unit_amount: ACME_EUR }],
    }),
  );
  await ok(
    api("PUT", "/v1/rate-cards/usd-card", {
      currency: "USD",
      entries: [{ agent_key: "triage", unit_amount: GLOBEX_USD }],
    }),
  );
  await ok(api("PUT", "/v1/agents/triage", { name: "Triage bot", condition: "resolved" }));
  await ok(api("PUT", "/v1/customers/acme", { name: "Acme", rate_card_key: "eur-card" }));
  await ok(api("PUT", "/v1/customers/globex", { name: "Globex", rate_card_key: "usd-card" }));
}

async function openCount(api: Api, filter: string, status: string): Promise<number> {
  const answer = (await api("GET", `/v1/outcomes?${filter}&status=${status}&limit=1000`)).body as {
    outcomes: unknown[];
  };
  return answer.outcomes.length;
}

/** One day: outcomes opened at 10:00, failures sent at once, the rest confirmed by their deadline at 11:00. */
async function seedDay(
  api: Api,
  clock: Clock,
  plan: FleetDay,
  dayStartMs: number,
  decidedBefore: number,
): Promise<number> {
  const day = Math.round((dayStartMs - WEEK_START) / DAY_MS);
  clock.now = dayStartMs + 10 * HOUR_MS;
  const failures = [
    ...Array<string>(plan.escalated).fill("escalated"),
    ...Array<string>(plan.refunded).fill("refunded"),
    ...Array<string>(plan.replies).fill("replies"),
  ];
  const total = plan.confirmed + failures.length;
  for (let i = 0; i < total; i++) {
    const key = `d${day}-t${i}`;
    await ok(api("POST", "/v1/outcomes", { key, task_key: "support" }));
    const failure = failures[i - plan.confirmed];
    if (failure === "escalated" || failure === "refunded")
      await ok(api("POST", "/v1/events", { outcome_key: key, action: failure }));
    if (failure === "replies")
      for (let r = 0; r < 4; r++) await ok(api("POST", "/v1/events", { outcome_key: key, action: "reply" }));
  }
  for (const [customer, jobs] of [
    ["acme", plan.acme],
    ["globex", plan.globex],
  ] as const) {
    for (let j = 0; j < jobs; j++)
      await ok(
        api("POST", "/v1/events", {
          key: `d${day}-${customer}-${j}`,
          action: "resolved",
          agent_key: "triage",
          customer_key: customer,
        }),
      );
  }
  const failed = decidedBefore + failures.length;
  await eventually(
    async () => ((await openCount(api, "task_key=support", "FAILED")) === failed ? true : undefined),
    20_000,
    `day ${day}'s failures`,
  );
  clock.now += 2 * HOUR_MS;
  await eventually(
    async () => ((await openCount(api, "task_key=support", "OPEN")) === 0 ? true : undefined),
    20_000,
    `day ${day}'s deadlines`,
  );
  for (let i = 0; i < (plan.late ?? 0); i++)
    await ok(api("POST", "/v1/events", { outcome_key: `d${day}-t0`, action: "reply" }));
  return failed;
}

async function deadLetterCount(api: Api): Promise<number> {
  return ((await api("GET", "/v1/dlq?limit=1000")).body as { dead_letters: unknown[] }).dead_letters.length;
}

/**
 * Seeds `days` (the week by default) from `start` on and leaves the clock at READ_AT, every outcome decided
 * and every charge made.
 */
export async function seedFleet(api: Api, clock: Clock, days = WEEK, start = WEEK_START): Promise<void> {
  await records(api);
  let failed = 0;
  for (let day = 0; day < days.length; day++)
    failed = await seedDay(api, clock, days[day]!, start + day * DAY_MS, failed);
  const jobs = days.reduce((sum, d) => sum + d.acme + d.globex, 0);
  const late = days.reduce((sum, d) => sum + (d.late ?? 0), 0);
  await eventually(async () => ((await deadLetterCount(api)) === late ? true : undefined), 20_000, "the late replies");
  await eventually(
    async () => ((await openCount(api, "agent_key=triage", "CONFIRMED")) === jobs ? true : undefined),
    20_000,
    "the agent's verdicts",
  );
  clock.now = READ_AT;
}
