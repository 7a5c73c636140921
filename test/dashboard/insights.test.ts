// The insight charts in Chromium on a seeded week: one bar or point per day with the seeded numbers in its
// data attributes (a task's time to verdict too, its median and 90th percentile per day), one revenue chart per currency, the failing clauses in order, marked in the condition
// and each linked to the outcomes that failed on it, hover details from the charts' script, the numbers without scripts, and no CSP violation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startTestApp, type TestApp } from "../support/app.js";
import { launchBrowser, screenshot, type TestBrowser } from "./browser.js";
import { FormClient } from "./form-client.js";
import { ACME_EUR, CLAUSES, dayStart, GLOBEX_USD, seedFleet, TASK_CONDITION, WEEK, type Clock } from "./fleet.js";

/** Each bar or point of a chart as "start=value", in drawing order. */
async function marks(page: Page, selector: string): Promise<string[]> {
  // An expression, not a function: the suites compile without the DOM's types.
  return page.evaluate<string[]>(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((n) => n.getAttribute("data-start") + "=" + n.getAttribute("data-value"))`,
  );
}

/** The 30 days the pages show, with the seeded week's values on its days and 0 elsewhere. */
function expected(pick: (day: (typeof WEEK)[number]) => number, days: readonly string[]): string[] {
  return days.map((start) => {
    const day = WEEK.findIndex((_, i) => dayStart(i) === start);
    return `${start}=${day < 0 ? 0 : pick(WEEK[day]!)}`;
  });
}

const failed = (d: (typeof WEEK)[number]): number => d.escalated + d.refunded + d.replies;

describe("insight charts in Chromium", () => {
  const clock: Clock = { now: Date.parse("2026-11-19T12:00:00.000Z") };
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  const violations: string[] = [];
  let days: string[] = [];

  beforeAll(async () => {
    t = await startTestApp("standalone", {}, { clock: () => clock.now });
    const visitor = new FormClient(t.base);
    await visitor.signUp(`fleet-${Date.now()}@example.com`, "Fleet Co");
    const token = await visitor.token();
    await seedFleet((method, path, body) => t.request(method, path, body, token), clock);
    browser = await launchBrowser();
    const [name, value] = visitor.cookie.split("=") as [string, string];
    await browser.context.addCookies([{ name, value, url: t.base }]);
    page = await browser.newPage();
    // Injected by the browser's debugging protocol, so the listener itself is no inline script the CSP refuses.
    await page.addInitScript({
      content:
        'document.addEventListener("securitypolicyviolation", (e) => console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI));',
    });
    page.on("console", (message) => {
      if (/Content.Security.Policy|CSP violation/i.test(message.text())) violations.push(message.text());
    });
    const end = Date.parse("2026-11-28T00:00:00.000Z");
    days = Array.from({ length: 30 }, (_, i) => new Date(end - (30 - i) * 86_400_000).toISOString());
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("draws the overview: confirmed and failed per day, the rate with its volume, revenue per currency", async () => {
    await page.goto(`${t.base}/dashboard/`);
    const agentJobs = (d: (typeof WEEK)[number]): number => d.acme + d.globex;
    await expect(marks(page, "#overview-outcomes rect[data-series=confirmed]")).resolves.toEqual(
      expected((d) => d.confirmed + agentJobs(d), days),
    );
    await expect(marks(page, "#overview-outcomes rect[data-series=failed]")).resolves.toEqual(expected(failed, days));
    const rates = WEEK.flatMap((d, i) => {
      const decided = d.confirmed + agentJobs(d) + failed(d);
      return decided === 0 ? [] : [`${dayStart(i)}=${(d.confirmed + agentJobs(d)) / decided}`];
    });
    await expect(marks(page, "#overview-rate circle")).resolves.toEqual(rates);
    await expect(page.locator("#overview-revenue-0 figcaption").textContent()).resolves.toMatch(/^Charges in EUR/);
    await expect(marks(page, "#overview-revenue-0 rect[data-series=charges]")).resolves.toEqual(
      expected((d) => d.acme * ACME_EUR, days),
    );
    await expect(marks(page, "#overview-revenue-1 rect[data-series=charges]")).resolves.toEqual(
      expected((d) => d.globex * GLOBEX_USD, days),
    );
    await expect(page.getByTestId("total-confirmed").textContent()).resolves.toContain(
      String(WEEK.reduce((s, d) => s + d.confirmed + agentJobs(d), 0)),
    );
    await screenshot(page, "insights-overview");
  });

  it("shows a bucket's numbers on hover, from the charts' own script", async () => {
    const fourth = page.locator(`#overview-outcomes g.bucket[data-start="${dayStart(3)}"] rect.hit`);
    // Above the bars, which would take the pointer themselves: the column's whole height is its target.
    await fourth.hover({ position: { x: 4, y: 4 } });
    const tip = page.locator(".chart-tip");
    await tip.waitFor({ state: "visible" });
    const d = WEEK[3]!;
    await expect(tip.textContent()).resolves.toBe(
      `Nov 23Confirmed ${d.confirmed + d.acme + d.globex} · Failed ${failed(d)}`,
    );
  });

  it("draws a task's days and ranks why its outcomes fail, each clause marked and linked", async () => {
    await page.goto(`${t.base}/dashboard/tasks`);
    await page.getByRole("link", { name: "Charts of task support" }).click();
    await page.waitForURL("**/dashboard/tasks/support/insights");
    await expect(marks(page, "#outcomes rect[data-series=confirmed]")).resolves.toEqual(
      expected((d) => d.confirmed, days),
    );
    await expect(marks(page, "#outcomes rect[data-series=failed]")).resolves.toEqual(expected(failed, days));
    const rows = page.locator("table.failing-clauses tbody tr");
    const sum = (pick: (d: (typeof WEEK)[number]) => number): string => String(WEEK.reduce((s, d) => s + pick(d), 0));
    const ranked =
      '[...document.querySelectorAll("table.failing-clauses tbody tr")].map((tr) => [tr.querySelector(".clause-text").textContent, tr.getAttribute("data-count"), tr.querySelector("mark").textContent])';
    await expect(page.evaluate<string[][]>(ranked)).resolves.toEqual([
      [CLAUSES.escalated, sum((d) => d.escalated), CLAUSES.escalated],
      [CLAUSES.refunded, sum((d) => d.refunded), CLAUSES.refunded],
      [CLAUSES.replies, sum((d) => d.replies), CLAUSES.replies],
    ]);
    await expect(rows.first().locator(".condition-marked").textContent()).resolves.toBe(TASK_CONDITION);
    // Time to verdict per day: failures decide at their event (the 1 s bucket), the rest at the 1 h deadline.
    const percentile = (q: number): string[] =>
      days.flatMap((start) => {
        const d = WEEK.find((_, i) => dayStart(i) === start);
        const decided = d ? failed(d) + d.confirmed : 0;
        return d && decided > 0 ? [`${start}=${failed(d) >= q * decided ? 1000 : 3_600_000}`] : [];
      });
    await expect(marks(page, "#time-to-verdict circle[data-series=p50]")).resolves.toEqual(percentile(0.5));
    await expect(marks(page, "#time-to-verdict circle[data-series=p90]")).resolves.toEqual(percentile(0.9));
    await screenshot(page, "insights-task");
    // The top clause's link lists the outcomes that failed on it, as many as its count, not every failed one.
    const clause = (await rows.first().getAttribute("data-clause"))!;
    await rows.first().getByRole("link", { name: "Failed outcomes" }).click();
    await page.waitForURL(`**/dashboard/outcomes?task_key=support&failed_clause=${clause}`);
    await expect(page.locator("tbody tr").count()).resolves.toBe(Number(sum((d) => d.escalated)));
    await expect(page.locator("#field-failed_clause").inputValue()).resolves.toBe(clause);
  });

  it("draws a customer's charges per day in its currency", async () => {
    await page.goto(`${t.base}/dashboard/customers/globex/insights`);
    await expect(page.locator("#charges-0 figcaption").textContent()).resolves.toContain("Charges in USD");
    await expect(marks(page, "#charges-0 rect[data-series=charges]")).resolves.toEqual(
      expected((d) => d.globex * GLOBEX_USD, days),
    );
    await expect(page.locator("#charges-1").count()).resolves.toBe(0);
  });

  it("draws an agent's days and its charges in both currencies, and says none of its outcomes failed", async () => {
    await page.goto(`${t.base}/dashboard/agents/triage/insights`);
    await expect(marks(page, "#outcomes rect[data-series=confirmed]")).resolves.toEqual(
      expected((d) => d.acme + d.globex, days),
    );
    await expect(marks(page, "#charges-0 rect[data-series=charges]")).resolves.toEqual(
      expected((d) => d.acme * ACME_EUR, days),
    );
    await expect(marks(page, "#charges-1 rect[data-series=charges]")).resolves.toEqual(
      expected((d) => d.globex * GLOBEX_USD, days),
    );
    await expect(page.getByTestId("no-failing-clauses").isVisible()).resolves.toBe(true);
  });

  it("serves every bar and the table of its numbers in the HTML itself, for a reader without scripts", async () => {
    const html = await (await page.context().request.get(`${t.base}/dashboard/tasks/support/insights`)).text();
    expect(html.match(/data-series="failed"/g)).toHaveLength(30);
    expect(html).toMatch(/<details class="chart-numbers"><summary>Numbers<\/summary>\s*<table/);
  });

  it("stays within the dashboard's CSP on every page it drew", () => {
    expect(violations).toEqual([]);
  });
});
