// The dashboard in a real browser: sign up, the API token and "New token", tasks with the live condition
// check, an outcome turning CONFIRMED live, replaying a dead letter, signing out.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { launchBrowser, screenshot, type TestBrowser } from "./browser.js";

describe("dashboard in Chromium", () => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  const email = `owner-${Date.now()}@example.com`;
  const password = "correct horse battery";
  let token = "";

  beforeAll(async () => {
    t = await startTestApp("standalone");
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  const api = (method: string, path: string, body?: unknown, bearer = token): ReturnType<TestApp["request"]> =>
    t.request(method, path, body, bearer);

  it("sends a visitor without a session to sign in", async () => {
    await page.goto(`${t.base}/dashboard/token`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
    await expect(page.getByRole("button", { name: "Sign in" }).isVisible()).resolves.toBe(true);
  });

  it("signs up, shows errors next to the fields, then shows the API token that the API accepts", async () => {
    await page.goto(`${t.base}/dashboard/sign-up`);
    await page.getByLabel("Email").fill("not-an-email");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect(page.locator("#field-email-error").textContent()).resolves.toContain("email address");
    await expect(page.locator("#field-password-error").textContent()).resolves.toContain("at least 12 characters");
    await expect(page.locator("#field-account_name-error").textContent()).resolves.toContain("name for the account");

    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByLabel("Account name").fill("Acme Robotics");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.waitForURL("**/dashboard/sign-in?**");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard/token");
    token = (await page.getByTestId("api-token").textContent()) ?? "";
    expect(token).not.toBe("");
    await screenshot(page, "token");
    expect((await api("GET", "/v1/tasks")).status).toBe(200);
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    await expect(page.evaluate<string>("navigator.clipboard.readText()")).resolves.toBe(token);
  });

  it("makes a new token after confirmation; the old one gets 401 at once", async () => {
    const old = token;
    await page.getByRole("link", { name: "New token" }).click();
    await page.getByRole("button", { name: "Yes, make a new token" }).click();
    await page.waitForURL("**/dashboard/token?rotated=1");
    token = (await page.getByTestId("api-token").textContent()) ?? "";
    expect(token).not.toBe(old);
    expect((await api("GET", "/v1/tasks", undefined, old)).status).toBe(401);
    expect((await api("GET", "/v1/tasks")).status).toBe(200);
  });

  it("creates a task: the condition is checked as it is typed, a bad one is refused beside the field", async () => {
    await page.getByRole("link", { name: "Tasks", exact: true }).click();
    await page.getByRole("link", { name: "New task" }).click();
    await page.getByLabel("Key").fill("support");
    await page.getByLabel("Name").fill("Support ticket");
    await page.getByLabel("Goal").fill("The customer's problem is solved");
    const condition = page.getByLabel("Condition");
    await condition.pressSequentially("COUNT(reply >= 2");
    await page.locator("#field-condition-error", { hasText: "column 13" }).waitFor();
    await expect(page.locator("#field-condition-error").textContent()).resolves.toBe("Expected ')' at column 13.");
    await page.getByLabel("Settlement period").fill("1d");
    await page.getByRole("button", { name: "Save task" }).click();
    // Refused by the API's own check: the page comes back with the error beside the field and the values kept.
    await expect(page.locator("#field-condition-error").textContent()).resolves.toBe("Expected ')' at column 13.");
    await expect(page.getByLabel("Name").inputValue()).resolves.toBe("Support ticket");
    await screenshot(page, "task-form-error");

    await condition.fill("");
    await condition.pressSequentially("COUNT(reply)  >= 2 AND (done)");
    await page.locator("#field-condition-canonical", { hasText: "COUNT(reply)>=2 AND done" }).waitFor();
    await expect(page.locator("#field-condition-error").textContent()).resolves.toBe("");
    await page.getByRole("button", { name: "Save task" }).click();
    await page.waitForURL("**/dashboard/tasks?notice=saved");
    await expect(page.getByRole("row", { name: /support/ }).textContent()).resolves.toContain(
      "COUNT(reply)>=2 AND done",
    );
    const stored = await api("GET", "/v1/tasks/support");
    expect(stored.body).toEqual({
      key: "support",
      name: "Support ticket",
      goal: "The customer's problem is solved",
      condition: "COUNT(reply)>=2 AND done",
      settlement_period: "1d",
    });
  });

  it("edits and deletes a task", async () => {
    await page.getByRole("link", { name: "support", exact: true }).click();
    await expect(page.getByLabel("Key").getAttribute("readonly")).resolves.not.toBeNull();
    await page.getByLabel("Settlement period").fill("2h");
    await page.getByRole("button", { name: "Save task" }).click();
    await page.waitForURL("**/dashboard/tasks?notice=saved");
    expect((await api("GET", "/v1/tasks/support")).body).toMatchObject({ settlement_period: "2h" });
    await api("PUT", "/v1/tasks/temporary", { name: "Temporary", condition: "x" });
    await page.reload();
    await page.getByRole("button", { name: "Delete task temporary" }).click();
    await page.waitForURL("**/dashboard/tasks?notice=deleted");
    expect((await api("GET", "/v1/tasks/temporary")).status).toBe(404);
  });

  it("shows an outcome opened through the API and turns it CONFIRMED live, without a reload", async () => {
    expect(
      (
        await api("PUT", "/v1/tasks/review", {
          name: "Review",
          goal: "A reviewer approves",
          condition: "COUNT(reply)>=1 AND approved",
          settlement_period: "1d",
        })
      ).status,
    ).toBe(201);
    expect((await api("POST", "/v1/outcomes", { key: "pr/42", task_key: "review" })).status).toBe(201);
    expect(
      (await api("POST", "/v1/events", { outcome_key: "pr/42", action: "reply", properties: { value: "looks good" } }))
        .status,
    ).toBe(202);

    await page.getByRole("link", { name: "Outcomes" }).click();
    await page.getByLabel("Status").selectOption("OPEN");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByRole("link", { name: "pr/42" }).click();
    await page.waitForURL("**/dashboard/outcomes/pr%2F42");
    const status = page.getByTestId("outcome-status");
    await expect(status.textContent()).resolves.toBe("OPEN");
    await page.getByTestId("outcome-condition").filter({ hasText: "✓COUNT(reply)>=1[1]" }).waitFor({ timeout: 5000 });
    const open = (await api("GET", "/v1/outcomes/pr%2F42")).body as { condition: string; progress: number };
    await expect(page.getByTestId("outcome-condition").textContent()).resolves.toBe(open.condition);
    await expect(page.getByTestId("outcome-progress").getAttribute("value")).resolves.toBe(String(open.progress));
    await expect(page.locator("[data-countdown]").textContent()).resolves.toMatch(
      /^\(in 23h 59m\)$|^\(in 1d\)$|^\(in 23h 5\dm\)$/,
    );
    await screenshot(page, "outcome-open");

    // A marker on the window survives only if the page is not reloaded.
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    expect((await api("POST", "/v1/events", { outcome_key: "pr/42", action: "approved" })).status).toBe(202);
    const sent = Date.now();
    await page.getByTestId("outcome-status").filter({ hasText: "CONFIRMED" }).waitFor({ timeout: 5000 });
    expect(Date.now() - sent).toBeLessThan(2000 + 1000);
    await expect(page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).resolves.toBe(true);
    const confirmed = (await api("GET", "/v1/outcomes/pr%2F42")).body as { condition: string };
    await expect(page.getByTestId("outcome-condition").textContent()).resolves.toBe(confirmed.condition);
    await expect(page.getByTestId("outcome-progress").getAttribute("value")).resolves.toBe("1");
    // The event log's first page follows too, then reads the same after a reload.
    const log = page.getByRole("table", { name: "Event log" });
    await log.getByRole("row", { name: /approved/ }).waitFor({ timeout: 2000 });
    await expect(page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).resolves.toBe(true);
    await page.reload();
    await expect(log.getByRole("row").count()).resolves.toBe(3);
    await expect(log.getByRole("row", { name: /approved/ }).count()).resolves.toBe(1);
    await screenshot(page, "outcome-confirmed");
  });

  it("replays a dead letter once the agent, rate card and customer it lacked exist; the charge shows up", async () => {
    const event = {
      key: "job-1",
      action: "resolved",
      customer_key: "globex",
      agent_key: "support-bot",
      properties: { value: 1 },
    };
    expect((await api("POST", "/v1/events", event)).status).toBe(202);
    await eventually(
      async () =>
        ((await api("GET", "/v1/dlq")).body as { dead_letters: unknown[] }).dead_letters.length === 1
          ? true
          : undefined,
      10_000,
      "the dead letter",
    );

    await page.getByRole("link", { name: "Dead letters" }).click();
    await page.getByLabel("Code").selectOption("CUSTOMER_NOT_FOUND");
    await page.getByRole("button", { name: "Filter" }).click();
    const letters = page.getByRole("table", { name: "Dead letters" });
    await expect(letters.textContent()).resolves.toContain("CUSTOMER_NOT_FOUND");
    await expect(letters.textContent()).resolves.toContain('"customer_key": "globex"');
    await screenshot(page, "dead-letters");

    const create = async (list: string, newLabel: string, fields: [string, string][], save: string): Promise<void> => {
      await page.getByRole("link", { name: list, exact: true }).click();
      await page.getByRole("link", { name: newLabel }).click();
      for (const [label, value] of fields) {
        if (label === "Attribution method") await page.getByLabel(label).selectOption(value);
        else await page.getByLabel(label, { exact: true }).fill(value);
      }
      await page.getByRole("button", { name: save }).click();
      await page.waitForURL("**?notice=saved");
    };
    await create(
      "Rate cards",
      "New rate card",
      [
        ["Key", "standard"],
        ["Currency", "eur"],
        ["Entries", "support-bot 250"],
      ],
      "Save rate card",
    );
    await create(
      "Agents",
      "New agent",
      [
        ["Key", "support-bot"],
        ["Name", "Support bot"],
        ["Condition", "resolved"],
        ["Attribution method", "sum"],
      ],
      "Save agent",
    );
    await create(
      "Customers",
      "New customer",
      [
        ["Key", "globex"],
        ["Name", "Globex"],
        ["Rate card key", "standard"],
      ],
      "Save customer",
    );
    expect((await api("GET", "/v1/rate-cards/standard")).body).toEqual({
      key: "standard",
      currency: "EUR",
      entries: [{ agent_key: "support-bot", unit_amount: 250 }],
    });

    await page.getByRole("link", { name: "Dead letters" }).click();
    await page.getByRole("button", { name: /^Replay dead letter/ }).click();
    await page.waitForURL("**/dashboard/dead-letters?replayed=*");
    await expect(page.getByRole("status").first().textContent()).resolves.toContain("Replayed");
    await expect(page.getByText("No dead letters.").isVisible()).resolves.toBe(true);
    await eventually(
      async () =>
        ((await api("GET", "/v1/outcomes/job-1")).body as { status?: string }).status === "CONFIRMED"
          ? true
          : undefined,
      10_000,
      "job-1 confirmed",
    );

    await page.getByRole("link", { name: "Charges" }).click();
    await expect(page.getByTestId("total-EUR").textContent()).resolves.toContain("€2.50");
    await expect(page.getByRole("table", { name: "Charges" }).textContent()).resolves.toContain("job-1");
    await page.getByLabel("Customer").fill("nobody");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.getByText("No charges in this selection.").isVisible()).resolves.toBe(true);
    await page.getByLabel("Customer").fill("globex");
    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel("From", { exact: true }).fill(today);
    await page.getByLabel("To", { exact: true }).fill(today);
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.getByTestId("total-EUR").textContent()).resolves.toContain("€2.50");
    await screenshot(page, "charges");
  });

  it("shows today's outcomes by status, dead letters waiting and the events received per minute on the home page", async () => {
    await page.getByRole("link", { name: "Home" }).click();
    // pr/42 and job-1 confirmed today; no dead letter left after the replay.
    await expect(page.getByTestId("home-confirmed").textContent()).resolves.toContain("2");
    await expect(page.getByTestId("home-open").textContent()).resolves.toContain("0");
    await expect(page.getByTestId("home-dead-letters").textContent()).resolves.toContain("0");
    // reply, approved, the Variant B event and its replay.
    await expect(page.getByTestId("ingest-summary").textContent()).resolves.toMatch(
      /^4 events received in the last 30 minutes/,
    );
    await expect(page.locator("svg.ingest rect").count()).resolves.toBe(31);
    await screenshot(page, "home");
  });

  it("refuses a form posted from another origin, even a same-site one the cookie goes along with", async () => {
    const csrf = (await page.locator('input[name="_csrf"]').first().getAttribute("value")) ?? "";
    // Another port on the same host is the same site, so SameSite=Strict still sends the cookie: the Origin
    // check is what refuses it (and the attacker even knows the CSRF token here).
    const attacker = createServer((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end(
        `<form method="post" action="${t.base}/dashboard/token/new"><input type="hidden" name="_csrf" value="${csrf}"><button>Win a prize</button></form>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    try {
      const before = token;
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      const [response] = await Promise.all([
        page.waitForResponse(`${t.base}/dashboard/token/new`),
        page.getByRole("button", { name: "Win a prize" }).click(),
      ]);
      expect(response.status()).toBe(403);
      await expect(page.locator("main").textContent()).resolves.toContain("sent from another site");
      await page.goto(`${t.base}/dashboard/token`);
      await expect(page.getByTestId("api-token").textContent()).resolves.toBe(before);
      expect((await api("GET", "/v1/tasks", undefined, before)).status).toBe(200);
    } finally {
      attacker.close();
    }
  });

  it("signs out: the session is gone and pages send to sign in again", async () => {
    const cookies = await browser.context.cookies();
    const session = cookies.find((cookie) => cookie.name === "verdict_session");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/dashboard" });
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/dashboard/sign-in");
    await page.goto(`${t.base}/dashboard/token`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
    // The old cookie value no longer opens anything, even if someone kept it.
    const replayed = await fetch(`${t.base}/dashboard/token`, {
      headers: { cookie: `verdict_session=${session!.value}` },
      redirect: "manual",
    });
    expect(replayed.status).toBe(303);
  });

  it("signs in again with the same email and password", async () => {
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("wrong password here");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toBe("Invalid email or password");
    // With the keyboard alone: the password field, type, Enter.
    await page.getByLabel("Password").focus();
    await page.keyboard.type(password);
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname === "/dashboard/token");
    await expect(page.getByTestId("api-token").textContent()).resolves.toBe(token);
  });

  it("is usable with the keyboard: Tab reaches the skip link, the navigation and Sign out", async () => {
    await page.goto(`${t.base}/dashboard/`);
    await page.keyboard.press("Tab");
    await expect(page.evaluate<string>("document.activeElement.textContent")).resolves.toBe("Skip to content");
    const reached: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      reached.push(await page.evaluate<string>("document.activeElement.textContent.trim()"));
    }
    expect(reached).toEqual(expect.arrayContaining(["Outcomes", "Dead letters", "API token", "Sign out"]));
    // Enter on a focused link follows it.
    await page.getByRole("link", { name: "Outcomes" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL("**/dashboard/outcomes");
  });
});
