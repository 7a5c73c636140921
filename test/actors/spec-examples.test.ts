// The spec's Outcome, Observation and Annotated condition examples, reproduced exactly through HTTP with
// a frozen business clock (receive times, reads and the monitor all use it), so IDLE brackets are exact.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";

const HOUR = 3600_000;
const DAY = 24 * HOUR;

describe.each(DEPLOYMENTS)("spec examples with a frozen clock (%s)", (deployment) => {
  const T = Date.parse("2026-03-01T09:00:00.000Z");
  let now = T;
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(deployment, {}, { clock: () => now });
  });
  afterAll(async () => {
    await t.stop();
  });

  const get = async (key: string) =>
    (await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}`)).body as Record<string, unknown> & {
      status: string;
      condition: string;
      progress: number;
      observations: Record<string, { count: number; last_value: unknown; last_at: string }>;
    };

  it("annotates ✓COUNT(agent_response)>=2[3] AND ~NOT escalated AND ✗customer_csat_set AND ✗IDLE(1d)[23h], then confirms on quiescence", async () => {
    now = T;
    const put = await t.request("PUT", "/v1/tasks/support", {
      name: "Support ticket",
      goal: "Customer issue resolved",
      condition: "COUNT(agent_response)>=2 AND NOT escalated AND customer_csat_set AND IDLE(1d)",
    });
    expect(put.status).toBe(201);
    const opened = await t.request("POST", "/v1/outcomes", { key: "ticket:42", task_key: "support" });
    expect(opened.status).toBe(201);
    expect(opened.body).toEqual({
      key: "ticket:42",
      status: "OPEN",
      goal: "Customer issue resolved",
      progress: 0.25,
      settles_at: null,
      condition: "✗COUNT(agent_response)>=2[0] AND ~NOT escalated AND ✗customer_csat_set AND ✗IDLE(1d)[1d]",
      observations: {},
      scores: { trajectory: null, anomaly: null, novelty: null },
    });

    for (const value of ["Looking into it", "Fixed", "Anything else?"]) {
      expect(
        (
          await t.request("POST", "/v1/events", {
            outcome_key: "ticket:42",
            action: "agent_response",
            properties: { value },
          })
        ).status,
      ).toBe(202);
    }
    await eventually(async () =>
      (await get("ticket:42")).observations.agent_response?.count === 3 ? true : undefined,
    );

    now = T + HOUR;
    const outcome = await get("ticket:42");
    expect(outcome.condition).toBe(
      "✓COUNT(agent_response)>=2[3] AND ~NOT escalated AND ✗customer_csat_set AND ✗IDLE(1d)[23h]",
    );
    expect(outcome.observations).toEqual({
      agent_response: { count: 3, last_value: "Anything else?", last_at: new Date(T).toISOString() },
    });
    // (1 + 1 + 0 + 1h/1d) / 4
    expect(outcome.progress).toBeCloseTo((2 + 1 / 24) / 4, 12);

    // The window elapses while the condition is not true: no verdict, IDLE turns true now.
    now = T + DAY + 2000;
    await new Promise((r) => setTimeout(r, 1500));
    const idle = await get("ticket:42");
    expect(idle.status).toBe("OPEN");
    expect(idle.condition).toBe(
      "✓COUNT(agent_response)>=2[3] AND ~NOT escalated AND ✗customer_csat_set AND ~IDLE(1d)[0s]",
    );

    expect(
      (
        await t.request("POST", "/v1/events", {
          outcome_key: "ticket:42",
          action: "customer_csat_set",
          properties: { value: 5 },
        })
      ).status,
    ).toBe(202);
    await eventually(async () => ((await get("ticket:42")).observations.customer_csat_set ? true : undefined));
    expect((await get("ticket:42")).condition).toBe(
      "✓COUNT(agent_response)>=2[3] AND ~NOT escalated AND ✓customer_csat_set AND ✗IDLE(1d)[1d]",
    );

    // A quiet day later everything is true now: quiescence confirms at the expiry instant, frozen there.
    now = T + 2 * DAY + 4000;
    const confirmed = await eventually(
      async () => {
        const o = await get("ticket:42");
        return o.status === "CONFIRMED" ? o : undefined;
      },
      10_000,
      "quiescence",
    );
    expect(confirmed.condition).toBe(
      "✓COUNT(agent_response)>=2[3] AND ~NOT escalated AND ✓customer_csat_set AND ~IDLE(1d)[0s]",
    );
    expect(confirmed.progress).toBe(1);
    now = T + 3 * DAY;
    expect((await get("ticket:42")).condition).toBe(confirmed.condition);
  });

  it("forces the verdict exactly at settles_at and keeps the formula of that instant", async () => {
    now = T + 10 * DAY;
    expect(
      (
        await t.request("PUT", "/v1/tasks/review", {
          name: "Review",
          condition: "F(review:score>=4) AND COUNT(ping)<3",
          settlement_period: "2h",
        })
      ).status,
    ).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: "rev:1", task_key: "review" })).status).toBe(201);
    expect(
      (
        await t.request("POST", "/v1/events", {
          outcome_key: "rev:1",
          action: "review",
          properties: { score: 5, meta: { overall: "good" } },
        })
      ).status,
    ).toBe(202);
    const open = await eventually(async () => {
      const o = await get("rev:1");
      return o.observations.review ? o : undefined;
    });
    expect(open.settles_at).toBe(new Date(now + 2 * HOUR).toISOString());
    expect(open.condition).toBe("✓F(~review:score>=4[5]) AND ~COUNT(ping)<3[0]");
    expect(open.observations.review?.last_value).toBeNull();

    now += 3 * HOUR;
    const settled = await eventually(
      async () => {
        const o = await get("rev:1");
        return o.status === "CONFIRMED" ? o : undefined;
      },
      10_000,
      "settlement",
    );
    expect(settled.condition).toBe("✓F(~review:score>=4[5]) AND ~COUNT(ping)<3[0]");
    expect(settled.settles_at).toBeNull();
  });
});
