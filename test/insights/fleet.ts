// A seeded fleet for the insight tests: outcomes of both variants over a simulated week, each with a known
// way to its verdict, and what every rollup must then say, worked out here by hand from the scenarios
// (not by the condition engine), so the API is checked against an independent count.
import { expect } from "vitest";
import { CONSUMER_GROUP } from "../../src/actors/consumer-group.js";
import type { TestApp } from "../support/app.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** Fixed time-to-verdict buckets of docs/insights.md (upper bounds, ms). */
const BOUNDS = [1_000, 10_000, 60_000, 600_000, HOUR, 6 * HOUR, DAY, 3 * DAY, 7 * DAY, 30 * DAY];

export type Way = "locked" | "idle" | "deadline";

interface Scenario {
  name: string;
  variant: "A" | "B";
  /** Task (A) or agent (B). */
  contract: string;
  /** Events after creation: action and minutes after creation (B's first event creates the outcome). */
  events: Array<[action: string, minutes: number]>;
  status: "CONFIRMED" | "FAILED";
  way: Way;
  /** Minutes from creation to the verdict. */
  verdictAfter: number;
  /** Texts of the clauses false at a FAILED verdict. */
  falseClauses: string[];
  /** Events sent after the verdict: each one is a dead letter (OUTCOME_NOT_OPEN) at that minute. */
  late?: Array<[action: string, minutes: number]>;
}

/** A outcomes are opened with settles_at 3 h after opening; B agents settle 2 h after the last event. */
const SCENARIOS: Scenario[] = [
  {
    name: "quick-lock",
    variant: "A",
    contract: "quick",
    events: [["done", 10]],
    status: "CONFIRMED",
    way: "locked",
    verdictAfter: 10,
    falseClauses: [],
  },
  {
    name: "quick-late",
    variant: "A",
    contract: "quick",
    events: [],
    status: "FAILED",
    way: "deadline",
    verdictAfter: 180,
    falseClauses: ["done"],
  },
  {
    name: "quiet-idle",
    variant: "A",
    contract: "quiet",
    events: [["ping", 5]],
    status: "CONFIRMED",
    way: "idle",
    verdictAfter: 35,
    falseClauses: [],
  },
  {
    name: "quiet-late",
    variant: "A",
    contract: "quiet",
    events: [],
    status: "FAILED",
    way: "deadline",
    verdictAfter: 180,
    falseClauses: ["ping"],
  },
  {
    name: "triage-ok",
    variant: "A",
    contract: "triage",
    events: [
      ["a", 5],
      ["b", 20],
    ],
    status: "CONFIRMED",
    way: "deadline",
    verdictAfter: 180,
    falseClauses: [],
  },
  {
    name: "triage-no-b",
    variant: "A",
    contract: "triage",
    events: [["a", 5]],
    status: "FAILED",
    way: "deadline",
    verdictAfter: 180,
    falseClauses: ["b"],
  },
  {
    name: "triage-x",
    variant: "A",
    contract: "triage",
    events: [["x", 15]],
    status: "FAILED",
    way: "locked",
    verdictAfter: 15,
    falseClauses: ["a", "b", "NOT x"],
  },
  {
    name: "triage-x-late",
    variant: "A",
    contract: "triage",
    events: [
      ["a", 5],
      ["x", 10],
    ],
    status: "FAILED",
    way: "locked",
    verdictAfter: 10,
    falseClauses: ["b", "NOT x"],
    late: [["b", 20]],
  },
  {
    name: "closer-lock",
    variant: "B",
    contract: "closer",
    events: [
      ["start", 0],
      ["done", 10],
    ],
    status: "CONFIRMED",
    way: "locked",
    verdictAfter: 10,
    falseClauses: [],
    late: [["done", 30]],
  },
  {
    name: "closer-late",
    variant: "B",
    contract: "closer",
    events: [["start", 0]],
    status: "FAILED",
    way: "deadline",
    verdictAfter: 120,
    falseClauses: ["done"],
  },
  {
    name: "watcher-idle",
    variant: "B",
    contract: "watcher",
    events: [["seen", 0]],
    status: "CONFIRMED",
    way: "idle",
    verdictAfter: 20,
    falseClauses: [],
  },
];

export const CUSTOMERS = [
  { key: "cust-usd", currency: "USD", prices: { closer: 500, watcher: 300 } },
  { key: "cust-eur", currency: "EUR", prices: { closer: 700, watcher: 200 } },
] as const;

/** One outcome of the fleet: its scenario, key, creation time and (B) customer. */
export interface Seeded {
  scenario: Scenario;
  key: string;
  createdAt: number;
  customer: (typeof CUSTOMERS)[number];
}

/** `count` outcomes over the week from `weekStart`, every 83 minutes, cycling through the scenarios. */
export function fleet(weekStart: number, count: number, label: string): Seeded[] {
  return Array.from({ length: count }, (_, i) => ({
    scenario: SCENARIOS[i % SCENARIOS.length]!,
    key: `${label}-${i}`,
    createdAt: weekStart + i * 83 * MIN + 7 * MIN,
    customer: CUSTOMERS[Math.floor(i / SCENARIOS.length) % CUSTOMERS.length]!,
  }));
}

/** Tasks, agents, customers and rate cards of the fleet. */
export async function putContracts(t: TestApp): Promise<void> {
  const put = async (path: string, body: unknown): Promise<void> => {
    const reply = await t.request("PUT", path, body);
    if (reply.status !== 201 && reply.status !== 200)
      throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  };
  await put("/v1/tasks/quick", { name: "Quick", condition: "done" });
  await put("/v1/tasks/quiet", { name: "Quiet", condition: "ping AND IDLE(30m)" });
  await put("/v1/tasks/triage", { name: "Triage", condition: "a AND b AND NOT x" });
  await put("/v1/agents/closer", { name: "Closer", condition: "done", settlement_period: "2h" });
  await put("/v1/agents/watcher", { name: "Watcher", condition: "seen AND IDLE(20m)", settlement_period: "2h" });
  for (const customer of CUSTOMERS) {
    const card = `card-${customer.currency}`;
    await put(`/v1/rate-cards/${card}`, {
      currency: customer.currency,
      entries: Object.entries(customer.prices).map(([agent_key, unit_amount]) => ({ agent_key, unit_amount })),
    });
    await put(`/v1/customers/${customer.key}`, { name: customer.key, rate_card_key: card });
  }
}

type Step = { at: number; send: Array<() => Promise<void>> };

/** Every action of the fleet as steps in time order: opening (A), events, late events. */
function steps(t: TestApp, seeded: readonly Seeded[]): Step[] {
  const byTime = new Map<number, Array<() => Promise<void>>>();
  const add = (at: number, send: () => Promise<void>): void => {
    const list = byTime.get(at) ?? [];
    list.push(send);
    byTime.set(at, list);
  };
  const expect202 = async (body: unknown, status = 202): Promise<void> => {
    const reply = await t.request("POST", "/v1/events", body);
    if (reply.status !== status)
      throw new Error(`event ${JSON.stringify(body)}: ${reply.status} ${JSON.stringify(reply.body)}`);
  };
  for (const { scenario, key, createdAt, customer } of seeded) {
    if (scenario.variant === "A") {
      add(createdAt, async () => {
        const reply = await t.request("POST", "/v1/outcomes", {
          key,
          task_key: scenario.contract,
          settles_at: new Date(createdAt + 3 * HOUR).toISOString(),
        });
        if (reply.status !== 201) throw new Error(`open ${key}: ${reply.status} ${JSON.stringify(reply.body)}`);
      });
    }
    for (const [action, minutes] of [...scenario.events, ...(scenario.late ?? [])]) {
      const event =
        scenario.variant === "A"
          ? { outcome_key: key, action }
          : { key, agent_key: scenario.contract, customer_key: customer.key, action };
      add(createdAt + minutes * MIN, () => expect202(event));
    }
  }
  return [...byTime].sort(([a], [b]) => a - b).map(([at, send]) => ({ at, send }));
}

/** Waits until every shard's stream has been read and acknowledged. */
export async function drained(t: TestApp): Promise<void> {
  for (;;) {
    let busy = false;
    for (let shard = 0; shard < t.options.shards && !busy; shard++) {
      const groups = (await t.app.redis.xinfo("GROUPS", t.app.keys.stream(shard))) as unknown[][];
      for (const group of groups) {
        const fields = new Map<string, unknown>();
        for (let i = 0; i < group.length; i += 2) fields.set(String(group[i]), group[i + 1]);
        if (
          fields.get("name") === CONSUMER_GROUP &&
          (Number(fields.get("pending")) > 0 || Number(fields.get("lag") ?? 0) > 0)
        )
          busy = true;
      }
    }
    if (!busy) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Plays the fleet through the app, moving the business clock (`setNow`) to each step's instant and
 * waiting for the step's events to be applied before time moves on, as it would in real time.
 */
export async function play(
  t: TestApp,
  seeded: readonly Seeded[],
  setNow: (ms: number) => void,
  onStep?: (index: number) => Promise<void>,
): Promise<void> {
  const all = steps(t, seeded);
  for (const [index, step] of all.entries()) {
    setNow(step.at);
    for (const send of step.send) await send();
    await drained(t);
    await onStep?.(index);
  }
}

export interface ExpectedPoint {
  opened: number;
  confirmed: number;
  failed: number;
  forced: number;
  dead_letters: number;
  charges: Record<string, number>;
}

export interface ExpectedGroup {
  /** By hour start (ms). */
  hours: Map<number, ExpectedPoint>;
  ways: Record<Way, number>;
  clauses: Map<string, number>;
  ttv: number[];
  chargeCounts: Record<string, number>;
}

const emptyPoint = (): ExpectedPoint => ({
  opened: 0,
  confirmed: 0,
  failed: 0,
  forced: 0,
  dead_letters: 0,
  charges: {},
});

/** What each group's rollups must hold, by dimension and key. */
export function expected(seeded: readonly Seeded[]): Record<"task" | "agent" | "customer", Map<string, ExpectedGroup>> {
  const result = {
    task: new Map<string, ExpectedGroup>(),
    agent: new Map<string, ExpectedGroup>(),
    customer: new Map<string, ExpectedGroup>(),
  };
  const groupOf = (dimension: keyof typeof result, key: string): ExpectedGroup => {
    let group = result[dimension].get(key);
    if (!group)
      result[dimension].set(
        key,
        (group = {
          hours: new Map(),
          ways: { locked: 0, idle: 0, deadline: 0 },
          clauses: new Map(),
          ttv: [],
          chargeCounts: {},
        }),
      );
    return group;
  };
  const point = (group: ExpectedGroup, at: number): ExpectedPoint => {
    const hour = Math.floor(at / HOUR) * HOUR;
    let p = group.hours.get(hour);
    if (!p) group.hours.set(hour, (p = emptyPoint()));
    return p;
  };
  for (const { scenario, createdAt, customer } of seeded) {
    const groups =
      scenario.variant === "A"
        ? [groupOf("task", scenario.contract)]
        : [groupOf("agent", scenario.contract), groupOf("customer", customer.key)];
    const verdictAt = createdAt + scenario.verdictAfter * MIN;
    for (const group of groups) {
      point(group, createdAt).opened += 1;
      const v = point(group, verdictAt);
      if (scenario.status === "CONFIRMED") v.confirmed += 1;
      else v.failed += 1;
      if (scenario.way === "deadline") v.forced += 1;
      group.ways[scenario.way] += 1;
      group.ttv.push(verdictAt - createdAt);
      for (const text of scenario.falseClauses) group.clauses.set(text, (group.clauses.get(text) ?? 0) + 1);
      if (scenario.variant === "B" && scenario.status === "CONFIRMED") {
        const amount = customer.prices[scenario.contract as keyof typeof customer.prices];
        v.charges[customer.currency] = (v.charges[customer.currency] ?? 0) + amount;
        group.chargeCounts[customer.currency] = (group.chargeCounts[customer.currency] ?? 0) + 1;
      }
      for (const [, minutes] of scenario.late ?? []) point(group, createdAt + minutes * MIN).dead_letters += 1;
    }
  }
  return result;
}

/** The upper bound of the fixed bucket holding the q-quantile of `values` (nearest rank). */
export function expectedQuantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const counts = new Array<number>(BOUNDS.length + 1).fill(0);
  for (const value of values) {
    const i = BOUNDS.findIndex((bound) => value <= bound);
    counts[i < 0 ? BOUNDS.length : i]! += 1;
  }
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= q * values.length) return BOUNDS[Math.min(i, BOUNDS.length - 1)]!;
  }
  return null;
}

/** Sums expected hourly points into the buckets that start at `starts` (ascending; the last ends at `end`). */
export function bucketed(group: ExpectedGroup | undefined, starts: readonly number[], end: number): ExpectedPoint[] {
  const points = starts.map(() => emptyPoint());
  for (const [hour, p] of group?.hours ?? []) {
    if (hour >= end) continue;
    let index = -1;
    for (let i = 0; i < starts.length; i++) if (starts[i]! <= hour) index = i;
    if (index < 0) continue;
    const target = points[index]!;
    target.opened += p.opened;
    target.confirmed += p.confirmed;
    target.failed += p.failed;
    target.forced += p.forced;
    target.dead_letters += p.dead_letters;
    for (const [currency, amount] of Object.entries(p.charges))
      target.charges[currency] = (target.charges[currency] ?? 0) + amount;
  }
  return points;
}

export interface Answer {
  bucket: string;
  from: string;
  to: string;
  groups: Array<{
    key: string;
    series: Array<{
      start: string;
      opened: number;
      confirmed: number;
      failed: number;
      forced: number;
      dead_letters: number;
      charges: Record<string, number>;
    }>;
    totals: {
      opened: number;
      confirmed: number;
      failed: number;
      decided: number;
      confirmation_rate: number | null;
      verdicts_by_cause: Record<string, number>;
      charges: Record<string, { count: number; amount: number }>;
      time_to_verdict_ms: { p50: number | null; p90: number | null };
    };
    failing_clauses: Array<{ clause: string; text: string; count: number }>;
  }>;
}

/** A Monday 00:00 UTC at least two weeks back: the simulated week is over, whole, in the past. */
export function mondayWeeksAgo(): number {
  const start = Math.floor((Date.now() - 14 * DAY) / DAY) * DAY;
  const weekday = (new Date(start).getUTCDay() + 6) % 7;
  return start - weekday * DAY;
}

/** Checks one dimension's answer against the expected rollups, bucket by bucket. */
export function checkAnswer(answer: Answer, groups: Map<string, ExpectedGroup>, starts: number[], end: number): void {
  expect(answer.groups.map((g) => g.key).sort()).toEqual([...groups.keys()].sort());
  for (const group of answer.groups) {
    const want = groups.get(group.key)!;
    expect(group.series.map((p) => Date.parse(p.start))).toEqual(starts);
    expect(group.series.map(({ start: _start, ...point }) => point)).toEqual(bucketed(want, starts, end));
    const sum = (name: "opened" | "confirmed" | "failed") => [...want.hours.values()].reduce((n, p) => n + p[name], 0);
    const decided = sum("confirmed") + sum("failed");
    expect(group.totals).toMatchObject({
      opened: sum("opened"),
      confirmed: sum("confirmed"),
      failed: sum("failed"),
      decided,
      confirmation_rate: decided >= 3 ? sum("confirmed") / decided : null,
      verdicts_by_cause: want.ways,
      time_to_verdict_ms: { p50: expectedQuantile(want.ttv, 0.5), p90: expectedQuantile(want.ttv, 0.9) },
    });
    for (const [currency, count] of Object.entries(want.chargeCounts))
      expect(group.totals.charges[currency]?.count).toBe(count);
    expect(Object.fromEntries(group.failing_clauses.map((c) => [c.text, c.count]))).toEqual(
      Object.fromEntries(want.clauses),
    );
    const counts = group.failing_clauses.map((c) => c.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    for (const clause of group.failing_clauses) expect(clause.clause).toMatch(/^[0-9a-f]{8}\.\d+$/);
  }
}

/**
 * For every failing clause of every task or agent group in the answer: the outcomes of that group that
 * `GET /v1/outcomes?failed_clause=` lists (paged 7 at a time through its cursors) are exactly the seeded ones
 * whose scenario fails on the clause's text, as many as the clause's count.
 */
export async function checkFailedClauseLists(
  t: TestApp,
  dimension: "task" | "agent",
  answer: Answer,
  seeded: readonly Seeded[],
): Promise<number> {
  let lists = 0;
  for (const group of answer.groups) {
    for (const { clause, text, count } of group.failing_clauses) {
      const want = seeded
        .filter((s) => s.scenario.contract === group.key && s.scenario.falseClauses.includes(text))
        .map((s) => s.key);
      const listed: string[] = [];
      let cursor: string | null = null;
      do {
        const reply = await t.request(
          "GET",
          `/v1/outcomes?failed_clause=${clause}&${dimension}_key=${group.key}&limit=7${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
        );
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        const page = reply.body as { outcomes: Array<{ key: string; status: string }>; next_cursor: string | null };
        expect(page.outcomes.every((o) => o.status === "FAILED")).toBe(true);
        listed.push(...page.outcomes.map((o) => o.key));
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(listed.sort(), `${group.key}: ${text}`).toEqual(want.sort());
      expect(listed).toHaveLength(count);
      lists++;
    }
  }
  return lists;
}

export { DAY, HOUR, MIN };
