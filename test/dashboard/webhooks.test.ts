// The Webhooks page in a real browser against a real receiver on 127.0.0.1: create an endpoint (errors
// beside the fields, the secret shown once), see a message delivered after a failed attempt whose hostile
// response is shown as text, resend it, disable and enable, rotate the secret, delete.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { Receiver } from "../webhooks/receiver.js";
import { launchBrowser, screenshot, signUpInBrowser, type TestBrowser } from "./browser.js";

interface Message {
  id: string;
  status: string;
  attempts: number;
}

/** What a hostile receiver answers: markup and a script that must stay text on the page. */
const HOSTILE_RESPONSE = `<img src=x onerror="window.pwned=1"><b id="injected">boom</b><script>window.pwned=2</script>`;
const HOSTILE_DESCRIPTION = `<script>window.pwned=3</script><i id="injected-description">ops</i>`;

describe("dashboard webhooks page in Chromium", () => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let receiver: Receiver;
  let token = "";
  let endpointId = "";
  let secret = "";

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestApp("standalone", { webhookAllowPrivateUrls: true, webhookRetryScheduleMs: [300, 300, 300] });
    browser = await launchBrowser();
    page = await browser.newPage();
    token = await signUpInBrowser(page, t.base, "Hook Co");
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await receiver?.stop();
  });

  const api = (method: string, path: string, body?: unknown): ReturnType<TestApp["request"]> =>
    t.request(method, path, body, token);
  const messages = async (): Promise<Message[]> =>
    ((await api("GET", `/v1/webhook-endpoints/${endpointId}/messages`)).body as { messages: Message[] }).messages;
  const pwned = (): Promise<unknown> => page.evaluate(() => (globalThis as { pwned?: unknown }).pwned);

  it("creates an endpoint: errors beside the fields, then the secret once", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.waitForURL("**/dashboard/webhooks");
    await expect(page.getByText("No webhook endpoints yet.").isVisible()).resolves.toBe(true);
    await page.getByRole("link", { name: "New endpoint" }).click();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect(page.locator("#field-url-error").textContent()).resolves.toBe("Enter the URL to send messages to.");
    // The API's own check, in words beside the field, the other values kept.
    await page.getByLabel("URL").fill("ftp://example.com/hook");
    await page.getByLabel("Description").fill("Ops bot");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect(page.locator("#field-url-error").textContent()).resolves.toMatch(/http/);
    await expect(page.getByLabel("Description").inputValue()).resolves.toBe("Ops bot");

    await page.getByLabel("URL").fill(receiver.url("/hook"));
    await page.getByLabel("outcome.confirmed").check();
    await page.getByLabel("outcome.failed").check();
    await page.getByLabel("Description").fill(HOSTILE_DESCRIPTION);
    await page.getByRole("button", { name: "Create endpoint" }).click();
    secret = (await page.getByTestId("webhook-secret").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_/);
    await expect(page.getByTestId("endpoint-description").textContent()).resolves.toBe(HOSTILE_DESCRIPTION);
    await expect(page.locator("#injected-description").count()).resolves.toBe(0);
    await screenshot(page, "webhook-created");

    const listed = (await api("GET", "/v1/webhook-endpoints")).body as {
      webhook_endpoints: { id: string; url: string; event_types: string[] | null }[];
    };
    expect(listed.webhook_endpoints).toHaveLength(1);
    expect(listed.webhook_endpoints[0]).toMatchObject({
      url: receiver.url("/hook"),
      event_types: ["outcome.confirmed", "outcome.failed"],
    });
    endpointId = listed.webhook_endpoints[0]!.id;
    expect((await api("GET", `/v1/webhook-endpoints/${endpointId}/secret`)).body).toEqual({ secret });

    // Once: the endpoint's own page (and the list) never show it again.
    await page.getByRole("link", { name: "Webhooks" }).click();
    await expect(page.locator("main").textContent()).resolves.not.toContain(secret);
    await expect(page.getByRole("table", { name: "Webhook endpoints" }).textContent()).resolves.toContain("enabled");
    await screenshot(page, "webhooks");
    await page.getByRole("link", { name: `Endpoint ${receiver.url("/hook")}` }).click();
    await expect(page.locator("main").textContent()).resolves.not.toContain(secret);
    expect(await pwned()).toBeUndefined();
  });

  it("shows a message delivered after a failed attempt, the receiver's markup as text, and resends it", async () => {
    let calls = 0;
    receiver.respond = () =>
      ++calls === 1
        ? { status: 500, headers: { "content-type": "text/html" }, body: HOSTILE_RESPONSE }
        : { status: 200, body: "thanks" };
    expect((await api("PUT", "/v1/tasks/review", { name: "Review", condition: "approved" })).status).toBe(201);
    expect((await api("POST", "/v1/outcomes", { key: "pr/7", task_key: "review" })).status).toBe(201);
    expect((await api("POST", "/v1/events", { outcome_key: "pr/7", action: "approved" })).status).toBe(202);
    const [message] = await eventually(
      async () => {
        const listed = await messages();
        return listed[0]?.status === "delivered" ? listed : undefined;
      },
      15_000,
      "the message delivered",
    );
    expect(message).toMatchObject({ attempts: 2 });

    await page.reload();
    const table = page.getByRole("table", { name: "Messages" });
    await expect(table.textContent()).resolves.toContain("outcome.confirmed");
    await expect(table.textContent()).resolves.toContain("delivered");
    await screenshot(page, "webhook-endpoint");

    await page.getByRole("link", { name: message!.id }).click();
    const attempts = page.getByRole("table", { name: "Attempts" });
    await expect(attempts.getByRole("row").count()).resolves.toBe(3);
    await expect(attempts.getByRole("row").nth(1).textContent()).resolves.toContain("HTTP 500");
    await expect(attempts.locator("pre").first().textContent()).resolves.toBe(HOSTILE_RESPONSE);
    await expect(attempts.getByRole("row").nth(2).textContent()).resolves.toContain("HTTP 200");
    await expect(attempts.locator("pre").nth(1).textContent()).resolves.toBe("thanks");
    await expect(page.locator("#injected").count()).resolves.toBe(0);
    await expect(page.locator("main img").count()).resolves.toBe(0);
    expect(await pwned()).toBeUndefined();
    await screenshot(page, "webhook-attempts");

    await page.getByRole("button", { name: "Resend" }).click();
    await page.waitForURL("**?notice=resent");
    await eventually(
      () =>
        Promise.resolve(
          receiver.on("/hook").filter((request) => request.id === message!.id).length === 3 ? true : undefined,
        ),
      10_000,
      "the resent delivery",
    );
    await eventually(
      async () => ((await messages())[0]?.attempts === 3 ? true : undefined),
      10_000,
      "the third attempt recorded",
    );
    await page.reload();
    await expect(attempts.getByRole("row").count()).resolves.toBe(4);
  });

  it("disables and enables the endpoint", async () => {
    await page.getByRole("link", { name: receiver.url("/hook") }).click();
    await page.getByRole("button", { name: "Disable" }).click();
    await page.waitForURL("**?notice=disabled");
    await expect(page.getByTestId("endpoint-state").textContent()).resolves.toBe("disabled");
    expect((await api("GET", `/v1/webhook-endpoints/${endpointId}`)).body).toMatchObject({ enabled: false });
    await page.getByRole("button", { name: "Enable" }).click();
    await page.waitForURL("**?notice=enabled");
    await expect(page.getByTestId("endpoint-state").textContent()).resolves.toBe("enabled");
    expect((await api("GET", `/v1/webhook-endpoints/${endpointId}`)).body).toMatchObject({ enabled: true });
  });

  it("rotates the secret after confirmation and shows the new one once", async () => {
    await page.getByRole("link", { name: "Rotate secret" }).click();
    await page.getByRole("button", { name: "Yes, make a new secret" }).click();
    const rotated = (await page.getByTestId("webhook-secret").textContent()) ?? "";
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect((await api("GET", `/v1/webhook-endpoints/${endpointId}/secret`)).body).toEqual({ secret: rotated });
  });

  it("deletes the endpoint after confirmation", async () => {
    await page.getByRole("link", { name: "Delete" }).click();
    await page.getByRole("button", { name: "Yes, delete this endpoint" }).click();
    await page.waitForURL("**/dashboard/webhooks?notice=deleted");
    await expect(page.getByText("No webhook endpoints yet.").isVisible()).resolves.toBe(true);
    expect((await api("GET", `/v1/webhook-endpoints/${endpointId}`)).status).toBe(404);
    await page.goto(`${t.base}/dashboard/webhooks/${endpointId}`);
    await expect(page.getByRole("heading", { name: "No such webhook endpoint" }).isVisible()).resolves.toBe(true);
  });
});
