// The OTLP mapping page in Chromium: reached from the navigation, it shows the effective mapping with each
// field marked as the default or as set for the account, and updates after PUT /v1/otlp/mapping.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { launchBrowser, screenshot, signUpInBrowser, type TestBrowser } from "./browser.js";

const MARKUP = "<img src=x onerror=pwned=1>";

describe("dashboard OTLP mapping page in Chromium", () => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let token = "";

  beforeAll(async () => {
    t = await startTestApp("standalone");
    browser = await launchBrowser();
    page = await browser.newPage();
    token = await signUpInBrowser(page, t.base, "Trace Co");
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  const row = (field: string) => page.locator(`tr[data-field="${field}"]`);

  it("shows the defaults, each marked, from the navigation", async () => {
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "OTLP mapping" }).click();
    await page.waitForURL("**/dashboard/otlp");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("OTLP mapping");
    expect(await page.getByRole("link", { name: "OTLP mapping" }).getAttribute("aria-current")).toBe("page");
    expect(await row("outcome_key_attributes").locator("li").allTextContents()).toEqual([
      "verdict.outcome_key",
      "gen_ai.conversation.id",
      "session.id",
      "langfuse.session.id",
      "ai.telemetry.metadata.sessionId",
    ]);
    expect(await row("customer_key_attributes").locator("li").allTextContents()).toEqual([
      "verdict.customer_key",
      "enduser.id",
      "user.id",
    ]);
    expect(await row("include_attributes").textContent()).toContain("none");
    expect(await page.locator(".badge").allTextContents()).toEqual(Array(5).fill("default"));
  });

  it("marks the fields an account override sets, and keeps the others as defaults", async () => {
    const put = await t.request(
      "PUT",
      "/v1/otlp/mapping",
      { outcome_key_attributes: ["thread.id"], include_attributes: ["gen_ai.request.temperature", MARKUP] },
      token,
    );
    expect(put.status).toBe(201);
    await page.reload();
    expect(await row("outcome_key_attributes").locator("li").allTextContents()).toEqual([
      "verdict.outcome_key",
      "thread.id",
    ]);
    expect(await row("outcome_key_attributes").locator(".badge").textContent()).toBe("set for this account");
    // An attribute name is shown as text, never as markup.
    expect(await row("include_attributes").locator("li").allTextContents()).toEqual([
      "gen_ai.request.temperature",
      MARKUP,
    ]);
    expect(await page.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
    expect(await row("task_key_attributes").locator(".badge").textContent()).toBe("default");
    await screenshot(page, "otlp-mapping");
  });
});
