// Reads while Redis cannot answer: killed, or paused (commands sent but never answered). Each read is a
// 503 SERVICE_UNAVAILABLE with Retry-After within about a second, not a 500 after the 5 s command timeout,
// and reads answer again once Redis is back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Accounts } from "../../src/accounts/accounts.js";
import { startVerdict, type VerdictApp } from "../../src/app.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { request, startPrivateRedis, testOptions, type PrivateRedis, type Reply } from "./support.js";

const READS = [
  "/v1/tasks",
  "/v1/tasks/t",
  "/v1/outcomes",
  "/v1/outcomes/o",
  "/v1/outcomes/o/events",
  "/v1/agents",
  "/v1/dlq",
  "/v1/charges",
  "/v1/usage",
];

describe("reads while Redis is unavailable (own standalone server)", () => {
  let redis: PrivateRedis;
  let app: VerdictApp;
  let base: string;
  let token: string;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const options = { ...testOptions("standalone"), redis: { kind: "standalone" as const, url: redis.url } };
    app = await startVerdict(options, { logger: silentLogger });
    token = (await new Accounts(app.redis, app.keys, options.tokenSecret).create("down")).token;
    base = `http://127.0.0.1:${app.port}`;
    expect((await request(base, "PUT", "/v1/tasks/t", { token, body: { name: "n", condition: "a" } })).status).toBe(
      201,
    );
  });
  afterAll(async () => {
    await app.stop();
    await redis.cleanup();
  });

  const expectUnavailable = async (): Promise<void> => {
    const replies = await Promise.all(
      READS.map(async (path): Promise<[string, Reply, number]> => {
        const started = Date.now();
        const reply = await request(base, "GET", path, { token });
        return [path, reply, Date.now() - started];
      }),
    );
    for (const [path, reply, ms] of replies) {
      expect([reply.status, (reply.body as { error?: { code: string } }).error?.code], path).toEqual([
        503,
        "SERVICE_UNAVAILABLE",
      ]);
      expect(reply.headers.get("retry-after"), path).toBe("1");
      expect(ms, path).toBeLessThan(1500);
    }
  };

  // The private server keeps no data across a restart, so the list (empty then) is what must answer.
  const expectReadsBack = async (): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      const reply = await request(base, "GET", "/v1/tasks", { token });
      if (reply.status === 200) return;
      if (attempt > 100) throw new Error(`reads did not come back: ${reply.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it("answers 503 within a second while Redis is paused, and reads again after", async () => {
    // Every client's commands wait until the pause ends (auto-expiring, so a failure cannot leave it on).
    await app.redis.call("CLIENT", "PAUSE", "4000", "ALL");
    try {
      await expectUnavailable();
    } finally {
      await app.redis.call("CLIENT", "UNPAUSE").catch(() => undefined);
    }
    await expectReadsBack();
  });

  it("answers 503 within a second while Redis is down, and reads again after it restarts", async () => {
    await redis.kill();
    await expectUnavailable();
    await redis.restart();
    await expectReadsBack();
  });
});
