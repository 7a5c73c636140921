// An in-process Verdict for suites: the whole service on free ports against one test deployment, with its
// own key prefix and a fresh account, plus a small JSON client.
import { randomBytes } from "node:crypto";
import { startVerdict, type VerdictApp } from "../../src/app.js";
import { Accounts } from "../../src/accounts/accounts.js";
import { DEFAULT_OPTIONS, type VerdictOptions } from "../../src/config/options.js";
import { DEFAULT_QUOTAS } from "../../src/config/quotas.js";
import { endpointOf, uniquePrefix, type Deployment } from "./redis.js";

export interface TestApp {
  app: VerdictApp;
  /** http://127.0.0.1:<port> */
  base: string;
  accounts: Accounts;
  accountId: string;
  token: string;
  options: VerdictOptions;
  /** A second account on the same app, for isolation tests. */
  newAccount(): Promise<{ accountId: string; token: string }>;
  request(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; body: unknown; headers: Headers }>;
  stop(): Promise<void>;
}

/** The quotas suites run with: the defaults, but a rate one account at full speed never meets. */
export const TEST_QUOTAS = Object.freeze({ ...DEFAULT_QUOTAS, eventsPerSecond: 1_000_000, eventBurst: 1_000_000 });

export function testOptions(deployment: Deployment, overrides: Partial<VerdictOptions> = {}): VerdictOptions {
  const endpoint = endpointOf(deployment);
  return {
    ...DEFAULT_OPTIONS,
    port: 0,
    metricsPort: 0,
    redis:
      endpoint.kind === "cluster"
        ? { kind: "cluster", nodes: endpoint.nodes }
        : { kind: "standalone", url: endpoint.kind === "standalone" ? endpoint.url : "" },
    keyPrefix: uniquePrefix(),
    tokenSecret: randomBytes(32).toString("base64url"),
    shards: 8,
    leaseTtlMs: 2000,
    logLevel: "silent",
    // Suites load one account at full speed to test other things; the quota suites and the two-tenant test set
    // the rate they test.
    quotas: TEST_QUOTAS,
    ...overrides,
  };
}

export async function startTestApp(
  deployment: Deployment,
  overrides: Partial<VerdictOptions> = {},
  extras: { clock?: () => number } = {},
): Promise<TestApp> {
  const options = testOptions(deployment, overrides);
  const app = await startVerdict(options, extras);
  const accounts = new Accounts(app.redis, app.keys, options.tokenSecret);
  const first = await accounts.create("test");
  const base = `http://127.0.0.1:${app.port}`;
  return {
    app,
    base,
    accounts,
    accountId: first.account_id,
    token: first.token,
    options,
    async newAccount() {
      const created = await accounts.create("other");
      return { accountId: created.account_id, token: created.token };
    },
    async request(method, path, body, token = first.token) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? null : JSON.stringify(body),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text === "" ? undefined : (JSON.parse(text) as unknown),
        headers: response.headers,
      };
    },
    stop: () => app.stop(),
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The sum of a metric's samples (all label sets) on a Verdict process's metrics port; 0 when absent. */
export async function metricValue(metricsPort: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}
