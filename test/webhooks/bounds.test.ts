// What webhooks keep in Redis (issue 37): a message's body once for all its endpoints, each endpoint's log
// bounded by count (VERDICT_WEBHOOK_LOG_MAX) and age (VERDICT_WEBHOOK_RETENTION) without dropping an
// undelivered message silently, and no outbox entry for an account without endpoints, while an endpoint
// answered before a verdict's commit still gets its message.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VerdictOptions } from "../../src/config/options.js";
import { masters } from "../../src/redis/client.js";
import { COMPLETE_MARK, WebhookAccounts } from "../../src/webhooks/webhook-accounts.js";
import { DEPLOYMENTS, type Deployment } from "../support/redis.js";
import { DEFAULT_OUTCOME_CAPS } from "../../src/outcomes/outcome-caps.js";
import { eventually, metricValue, startTestApp, TEST_QUOTAS, type TestApp } from "../support/app.js";
import { Receiver, type Received } from "./receiver.js";

interface Message {
  id: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  payload: { type: string; data: { key: string } };
}

type Account = { accountId: string; token: string };

const unique = (label: string): string => `${label}-${randomBytes(4).toString("hex")}`;
const BODY_BYTES = 200_000;

function verify(secret: string, request: Received): unknown {
  return new Webhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"]),
  });
}

/** A test app with a receiver and helpers acting as one account or another. */
function suite(deployment: Deployment, overrides: Partial<VerdictOptions>) {
  const s = {
    t: undefined as unknown as TestApp,
    receiver: undefined as unknown as Receiver,
    async start(): Promise<void> {
      s.receiver = await new Receiver().start();
      // 50 endpoints and a 200 KB value: past the endpoint quota and the outcome caps' defaults on purpose.
      const quotas = { ...TEST_QUOTAS, webhookEndpoints: 50 };
      const outcomeCaps = { ...DEFAULT_OUTCOME_CAPS, maxValueBytes: 2 ** 20, maxSnapshotBytes: 2 ** 20 };
      s.t = await startTestApp(deployment, { webhookAllowPrivateUrls: true, quotas, outcomeCaps, ...overrides });
    },
    async stop(): Promise<void> {
      await s.t?.stop();
      await s.receiver?.stop();
    },
    async endpoint(account: Account, path: string): Promise<{ id: string; secret: string }> {
      const created = await s.t.request(
        "POST",
        "/v1/webhook-endpoints",
        { url: s.receiver.url(path), event_types: ["outcome.confirmed"] },
        account.token,
      );
      expect(created.status).toBe(201);
      return created.body as { id: string; secret: string };
    },
    /** Opens `count` outcomes of a task confirmed by "done". */
    async outcomes(account: Account, count: number): Promise<string[]> {
      const task = unique("task");
      expect(
        (await s.t.request("PUT", `/v1/tasks/${task}`, { name: "t", goal: null, condition: "done" }, account.token))
          .status,
      ).toBe(201);
      const keys = Array.from({ length: count }, () => unique("ticket"));
      for (const key of keys)
        expect((await s.t.request("POST", "/v1/outcomes", { key, task_key: task }, account.token)).status).toBe(201);
      return keys;
    },
    async confirm(account: Account, keys: readonly string[], properties?: object): Promise<void> {
      const events = keys.map((key) => ({ outcome_key: key, action: "done", ...(properties ? { properties } : {}) }));
      expect((await s.t.request("POST", "/v1/events/batch", { events }, account.token)).status).toBe(202);
    },
    async messages(account: Account, endpointId: string): Promise<Message[]> {
      const listed = await s.t.request(
        "GET",
        `/v1/webhook-endpoints/${endpointId}/messages?limit=1000`,
        undefined,
        account.token,
      );
      expect(listed.status).toBe(200);
      return (listed.body as { messages: Message[] }).messages;
    },
    /** The app's webhook keys matching `*:wh:<kind>*` and their total MEMORY USAGE, over every master. */
    async webhookKeys(kind = ""): Promise<{ keys: string[]; bytes: number }> {
      const found: string[] = [];
      let bytes = 0;
      for (const node of masters(s.t.app.redis)) {
        let cursor = "0";
        do {
          const [next, keys] = await node.scan(cursor, "MATCH", `${s.t.options.keyPrefix}*:wh:${kind}*`, "COUNT", 1000);
          cursor = next;
          for (const key of keys) {
            found.push(key);
            bytes += Number((await node.call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0);
          }
        } while (cursor !== "0");
      }
      return { keys: found, bytes };
    },
  };
  return s;
}

describe.each(DEPLOYMENTS)("webhook storage (%s)", (deployment) => {
  const s = suite(deployment, {});
  beforeAll(() => s.start());
  afterAll(() => s.stop());

  /** Entries ever written to the app's outboxes (XINFO STREAM entries-added, over the shards). */
  async function outboxEntriesAdded(): Promise<number> {
    let total = 0;
    for (let shard = 0; shard < s.t.options.shards; shard++) {
      const info = (await s.t.app.redis
        .xinfo("STREAM", s.t.app.keys.webhookOutbox(shard))
        .catch(() => [])) as unknown[];
      const at = info.indexOf("entries-added");
      total += at < 0 ? 0 : Number(info[at + 1]);
    }
    return total;
  }

  function accountsComplete(): Promise<boolean> {
    return new WebhookAccounts(s.t.app.redis, s.t.app.keys, s.t.options.shards).complete();
  }

  it("stores a 200 KB message once for 50 endpoints, and every endpoint gets it, signed", async () => {
    const account = await s.t.newAccount();
    const hooks: { id: string; secret: string }[] = [];
    for (let i = 0; i < 50; i++) hooks.push(await s.endpoint(account, `/fan/${i}`));
    const [key] = await s.outcomes(account, 1);
    const before = await s.webhookKeys();
    await s.confirm(account, [key!], { value: "x".repeat(BODY_BYTES) });
    await eventually(
      () => Promise.resolve(hooks.every((_, i) => s.receiver.on(`/fan/${i}`).length === 1) ? true : undefined),
      30_000,
      "every endpoint received the verdict",
    );
    // Recorded as delivered everywhere before Redis is measured (the state of each endpoint's message).
    await eventually(
      async () =>
        (await Promise.all(hooks.map((hook) => s.messages(account, hook.id)))).every(
          (listed) => listed[0]?.status === "delivered",
        )
          ? true
          : undefined,
      30_000,
      "50 delivered messages",
    );
    const ids = new Set<string>();
    for (const [i, hook] of hooks.entries()) {
      const [request] = s.receiver.on(`/fan/${i}`);
      expect(request!.body.length).toBeGreaterThan(BODY_BYTES);
      expect(verify(hook.secret, request!)).toMatchObject({ type: "outcome.confirmed", data: { key } });
      ids.add(request!.id);
    }
    expect(ids.size).toBe(1);
    const after = await s.webhookKeys();
    const bodies = (await s.webhookKeys("body:")).keys;
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatch(new RegExp(`:wh:body:${[...ids][0]!}$`));
    console.log(
      `webhook keys (${deployment}): +${after.bytes - before.bytes} bytes for one ${BODY_BYTES}-byte message to ${hooks.length} endpoints`,
    );
    // One body (about 200 KB) and 50 small states, not 50 bodies (10 MB).
    expect(after.bytes - before.bytes).toBeLessThan(2 * BODY_BYTES);
    // The listing still shows the payload.
    expect((await s.messages(account, hooks[0]!.id))[0]!.payload).toMatchObject({
      type: "outcome.confirmed",
      data: { key },
    });
  });

  it("writes no outbox entry for an account without endpoints, also after its last one is deleted", async () => {
    await eventually(
      async () => ((await accountsComplete()) ? true : undefined),
      20_000,
      "the accounts with endpoints listed in every shard",
    );
    const quiet = await s.t.newAccount();
    const hook = await s.endpoint(quiet, "/short-lived");
    expect((await s.t.request("DELETE", `/v1/webhook-endpoints/${hook.id}`, undefined, quiet.token)).status).toBe(204);
    const keys = await s.outcomes(quiet, 60);
    const before = await outboxEntriesAdded();
    await s.confirm(quiet, keys);
    await eventually(
      async () => {
        const listed = (await s.t.request("GET", "/v1/outcomes?status=CONFIRMED&limit=1000", undefined, quiet.token))
          .body as { outcomes: unknown[] };
        return listed.outcomes.length === keys.length ? true : undefined;
      },
      20_000,
      "every verdict committed",
    );
    expect(await outboxEntriesAdded()).toBe(before);
    // The same verdicts for an account with an endpoint do make entries.
    const loud = await s.t.newAccount();
    await s.endpoint(loud, "/loud");
    const loudKeys = await s.outcomes(loud, 5);
    await s.confirm(loud, loudKeys);
    await eventually(
      () => Promise.resolve(s.receiver.on("/loud").length === loudKeys.length ? true : undefined),
      20_000,
      "the loud account's messages",
    );
    expect(await outboxEntriesAdded()).toBe(before + loudKeys.length);
  });

  it("delivers a verdict committed right after its account's first endpoint was created", async () => {
    await eventually(
      async () => ((await accountsComplete()) ? true : undefined),
      20_000,
      "the accounts with endpoints listed in every shard",
    );
    for (let i = 0; i < 5; i++) {
      const account = await s.t.newAccount();
      const [key] = await s.outcomes(account, 1);
      const hook = await s.endpoint(account, `/first-${i}`);
      await s.confirm(account, [key!]);
      const [request] = await eventually(
        () => Promise.resolve(s.receiver.on(`/first-${i}`).length > 0 ? s.receiver.on(`/first-${i}`) : undefined),
        20_000,
        `the verdict at /first-${i}`,
      );
      expect(verify(hook.secret, request!)).toMatchObject({ type: "outcome.confirmed", data: { key } });
    }
  });

  it("writes every notification until the accounts with endpoints are listed, and lists those of a deployment from before", async () => {
    const account = await s.t.newAccount();
    await s.endpoint(account, "/upgraded");
    // As a deployment from before the lists: no shard's list holds the account, none is complete.
    for (let shard = 0; shard < s.t.options.shards; shard++)
      await s.t.app.redis.srem(s.t.app.keys.webhookAccounts(shard), account.accountId, COMPLETE_MARK);
    const [key] = await s.outcomes(account, 1);
    await s.confirm(account, [key!]);
    await eventually(
      () => Promise.resolve(s.receiver.on("/upgraded").length === 1 ? true : undefined),
      20_000,
      "the verdict while the lists are incomplete",
    );
    const accounts = new WebhookAccounts(s.t.app.redis, s.t.app.keys, s.t.options.shards);
    await accounts.build();
    for (let shard = 0; shard < s.t.options.shards; shard++) {
      expect(
        await s.t.app.redis.smismember(s.t.app.keys.webhookAccounts(shard), account.accountId, COMPLETE_MARK),
      ).toEqual([1, 1]);
    }
  });
});

describe.each(DEPLOYMENTS)("webhook log count (%s)", (deployment) => {
  // 8 shards: each keeps one delivered or failed message of an endpoint.
  const s = suite(deployment, { webhookLogMax: 8, webhookRetryScheduleMs: [100] });
  beforeAll(() => s.start());
  afterAll(() => s.stop());

  it("keeps an endpoint's newest delivered messages up to the count, and every pending one", async () => {
    const account = await s.t.newAccount();
    const hook = await s.endpoint(account, "/count");
    const keys = await s.outcomes(account, 30);
    await s.confirm(account, keys);
    await eventually(
      () => Promise.resolve(new Set(s.receiver.on("/count").map((r) => r.id)).size === keys.length ? true : undefined),
      30_000,
      "30 messages received",
    );
    const kept = await eventually(
      async () => {
        const listed = await s.messages(account, hook.id);
        return listed.length <= 8 && listed.every((m) => m.status === "delivered") ? listed : undefined;
      },
      20_000,
      "the log trimmed to 8",
    );
    expect(kept.length).toBeGreaterThan(0);
    // What left the listing left Redis: states, attempts and bodies.
    expect((await s.webhookKeys("msg:")).keys.length).toBeLessThanOrEqual(8);
    expect((await s.webhookKeys("att:")).keys.length).toBeLessThanOrEqual(8);
    expect((await s.webhookKeys("body:")).keys.length).toBeLessThanOrEqual(8);

    // A receiver asking to wait an hour: its messages stay pending, beyond the count, none dropped.
    const stuck = await s.t.newAccount();
    s.receiver.respond = (request) =>
      request.path === "/busy" ? { status: 503, headers: { "retry-after": "3600" } } : { status: 200 };
    const busy = await s.endpoint(stuck, "/busy");
    const busyKeys = await s.outcomes(stuck, 20);
    await s.confirm(stuck, busyKeys);
    const pending = await eventually(
      async () => {
        const listed = await s.messages(stuck, busy.id);
        return listed.length === busyKeys.length && listed.every((m) => m.status === "pending" && m.attempts === 1)
          ? listed
          : undefined;
      },
      30_000,
      "20 pending messages after one attempt each",
    );
    expect(new Set(pending.map((m) => m.payload.data.key))).toEqual(new Set(busyKeys));
  });
});

describe.each(DEPLOYMENTS)("webhook log age (%s)", (deployment) => {
  const s = suite(deployment, { webhookRetentionMs: 2000 });
  beforeAll(() => s.start());
  afterAll(() => s.stop());

  it("removes messages past the retention, and counts an undelivered one it drops", async () => {
    const account = await s.t.newAccount();
    const hook = await s.endpoint(account, "/aged");
    const [key] = await s.outcomes(account, 1);
    await s.confirm(account, [key!]);
    await eventually(
      async () => ((await s.messages(account, hook.id))[0]?.status === "delivered" ? true : undefined),
      20_000,
      "the message delivered",
    );
    await eventually(
      async () => ((await s.messages(account, hook.id)).length === 0 ? true : undefined),
      20_000,
      "the message aged out of the listing",
    );
    await eventually(
      async () =>
        (await s.webhookKeys("msg:")).keys.length +
          (await s.webhookKeys("body:")).keys.length +
          (await s.webhookKeys("att:")).keys.length ===
        0
          ? true
          : undefined,
      20_000,
      "its keys gone",
    );

    s.receiver.respond = (request) =>
      request.path === "/asleep" ? { status: 503, headers: { "retry-after": "3600" } } : { status: 200 };
    const asleep = await s.endpoint(account, "/asleep");
    const [late] = await s.outcomes(account, 1);
    await s.confirm(account, [late!]);
    await eventually(
      async () => ((await s.messages(account, asleep.id))[0]?.status === "pending" ? true : undefined),
      20_000,
      "a pending message",
    );
    await eventually(
      async () =>
        (await metricValue(s.t.app.metricsPort, "verdict_webhook_messages_expired_total")) >= 1 ? true : undefined,
      20_000,
      "the dropped message counted",
    );
    expect(await s.messages(account, asleep.id)).toEqual([]);
  });
});

describe.each(DEPLOYMENTS)("webhook backlog (%s)", (deployment) => {
  // 8 shards: an endpoint may have one undelivered message queued on each.
  const s = suite(deployment, { webhookBacklogMax: 8 });
  beforeAll(() => s.start());
  afterAll(() => s.stop());

  it("creates no message for an endpoint whose backlog is full, and counts each one it skips", async () => {
    const account = await s.t.newAccount();
    s.receiver.respond = (request) =>
      request.path === "/down" ? { status: 503, headers: { "retry-after": "3600" } } : { status: 200 };
    const down = await s.endpoint(account, "/down");
    const keys = await s.outcomes(account, 40);
    await s.confirm(account, keys);
    // Every verdict either became a pending message (at most one per shard) or was counted as skipped.
    const pending = await eventually(
      async () => {
        const listed = await s.messages(account, down.id);
        const skipped = await metricValue(s.t.app.metricsPort, "verdict_webhook_messages_skipped_total");
        return listed.length + skipped === keys.length ? listed : undefined;
      },
      30_000,
      "40 verdicts queued or skipped",
    );
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.length).toBeLessThanOrEqual(8);
    expect(pending.every((m) => m.status === "pending")).toBe(true);
    expect((await s.webhookKeys("msg:")).keys.length).toBeLessThanOrEqual(8);
  });
});
