// A month of the seeded fleet in Chromium: every day of the overview and of the task page has its bars and its
// time to verdict, as docs/dashboard.md's screenshots show them (saved under test-output/dashboard/).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startTestApp, type TestApp } from "../support/app.js";
import { launchBrowser, screenshot, type TestBrowser } from "./browser.js";
import { FormClient } from "./form-client.js";
import { seedFleet, type Clock, type FleetDay } from "./fleet.js";

const DAY_MS = 86_400_000;
/** The 30 days the pages show at READ_AT: the last one is READ_AT's. */
const MONTH_START = Date.parse("2026-10-29T00:00:00.000Z");

/** A busier fleet on weekdays than at weekends, its failures spread over the three clauses. */
const MONTH: readonly FleetDay[] = Array.from({ length: 30 }, (_, day) => {
  const weekend = [0, 6].includes(new Date(MONTH_START + day * DAY_MS).getUTCDay());
  const busy = weekend ? 3 : 7 + ((day * 5) % 6);
  return {
    confirmed: busy,
    escalated: (day * 3) % 4 === 0 ? 2 : 1,
    refunded: day % 3 === 0 ? 1 : 0,
    replies: weekend ? 0 : day % 2,
    acme: 1 + (day % 3),
    globex: weekend ? 0 : 1 + ((day * 7) % 3),
    late: day % 5 === 2 ? 1 + (day % 2) : 0,
  };
});

/** Each mark of a chart as "start=value", in drawing order. */
async function marks(page: Page, selector: string): Promise<string[]> {
  return page.evaluate<string[]>(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((n) => n.getAttribute("data-start") + "=" + n.getAttribute("data-value"))`,
  );
}

const dayOf = (i: number): string => new Date(MONTH_START + i * DAY_MS).toISOString();

describe("a month of the fleet in Chromium", () => {
  const clock: Clock = { now: MONTH_START - DAY_MS };
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp("standalone", {}, { clock: () => clock.now });
    const visitor = new FormClient(t.base);
    await visitor.signUp(`month-${Date.now()}@example.com`, "Fleet Co");
    const token = await visitor.token();
    await seedFleet((method, path, body) => t.request(method, path, body, token), clock, MONTH, MONTH_START);
    browser = await launchBrowser();
    const [name, value] = visitor.cookie.split("=") as [string, string];
    await browser.context.addCookies([{ name, value, url: t.base }]);
    page = await browser.newPage();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("draws every day of the overview", async () => {
    await page.goto(`${t.base}/dashboard/`);
    await expect(marks(page, "#overview-outcomes rect[data-series=confirmed]")).resolves.toEqual(
      MONTH.map((d, i) => `${dayOf(i)}=${d.confirmed + d.acme + d.globex}`),
    );
    await expect(marks(page, "#overview-outcomes rect[data-series=failed]")).resolves.toEqual(
      MONTH.map((d, i) => `${dayOf(i)}=${d.escalated + d.refunded + d.replies}`),
    );
    await expect(marks(page, "#overview-dead-letters rect[data-series=dead-letters]")).resolves.toEqual(
      MONTH.map((d, i) => `${dayOf(i)}=${d.late ?? 0}`),
    );
    await screenshot(page, "insights-month-overview");
  });

  it("draws every day of a task's time to verdict", async () => {
    await page.goto(`${t.base}/dashboard/tasks/support/insights`);
    const p50 = await marks(page, "#time-to-verdict circle[data-series=p50]");
    expect(p50.map((mark) => mark.split("=")[0])).toEqual(MONTH.map((_, i) => dayOf(i)));
    await screenshot(page, "insights-month-task");
  });
});
