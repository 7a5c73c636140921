// Chromium from Debian driven by playwright-core for the dashboard suites: never a downloaded browser, the
// flags a sandboxed root needs, and screenshots under test-output/dashboard/.
import { mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const SCREENSHOTS = join(import.meta.dirname, "..", "..", "test-output", "dashboard");

export interface TestBrowser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), "verdict-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 860 },
  });
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Signs a new account up and in through the pages, as a person does, and returns the API token it is shown. */
export async function signUpInBrowser(page: Page, base: string, accountName: string): Promise<string> {
  await page.goto(`${base}/dashboard/sign-up`);
  const email = `${accountName.toLowerCase().replace(/\W+/g, "-")}-${Date.now()}@example.com`;
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByLabel("Account name").fill(accountName);
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL("**/dashboard/sign-in?**");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/dashboard/token");
  return (await page.getByTestId("api-token").textContent()) ?? "";
}
