// Every record list (tasks, agents, customers, rate cards, webhook endpoints) pages by key with a cursor:
// full pages then the rest, next_cursor null on the last; records added or deleted between pages are
// neither repeated nor skipped; a cursor the list did not hand out is 400 VALIDATION_ERROR, never a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "../support/redis.js";
import { request, startTestApp, type Reply, type TestApp } from "./support.js";

const b64 = (text: string | Buffer): string => Buffer.from(text).toString("base64url");
const pad = (i: number): string => String(i).padStart(3, "0");

interface Page {
  items: string[];
  next: string | null;
}

describe.each(DEPLOYMENTS)("record list paging (%s)", (deployment) => {
  let t: TestApp;
  const call = (method: string, path: string, body?: unknown): Promise<Reply> =>
    request(t.base, method, path, { token: t.token, ...(body !== undefined && { body }) });

  /** One page of a list: the items' keys (or ids) and the next cursor. */
  const page = async (list: string, field: string, query: string): Promise<Page> => {
    const reply = await call("GET", `${list}?${query}`);
    expect(reply.status, `${list}?${query}: ${reply.text}`).toBe(200);
    const body = reply.body as Record<string, { key?: string; id?: string }[]> & { next_cursor: string | null };
    expect(Object.keys(body).sort()).toEqual([field, "next_cursor"].sort());
    return { items: body[field]!.map((item) => item.key ?? item.id!), next: body.next_cursor };
  };

  /** Every page from the first (or from `cursor`), with its size. */
  const walk = async (list: string, field: string, limit: number, cursor: string | null = null): Promise<Page[]> => {
    const pages: Page[] = [];
    do {
      const next: Page = await page(
        list,
        field,
        `limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      pages.push(next);
      cursor = next.next;
    } while (cursor !== null);
    return pages;
  };

  const bodies: Record<string, unknown> = {
    tasks: { name: "n", condition: "done" },
    agents: { name: "n", condition: "done" },
    customers: { name: "n" },
    "rate-cards": { currency: "EUR", entries: [] },
  };
  const taskKeys = Array.from({ length: 250 }, (_, i) => `t${pad(i)}`);
  let endpointIds: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(deployment, { webhookAllowPrivateUrls: true });
    for (const key of taskKeys) expect((await call("PUT", `/v1/tasks/${key}`, bodies.tasks)).status).toBe(201);
    for (const segment of ["agents", "customers", "rate-cards"]) {
      for (let i = 0; i < 25; i++)
        expect((await call("PUT", `/v1/${segment}/${segment}-${pad(i)}`, bodies[segment])).status).toBe(201);
    }
    for (let i = 0; i < 12; i++) {
      const created = await call("POST", "/v1/webhook-endpoints", { url: `http://127.0.0.1:9/hook-${i}` });
      expect(created.status).toBe(201);
      endpointIds.push((created.body as { id: string }).id);
    }
    endpointIds = endpointIds.sort();
  }, 120_000);
  afterAll(() => t?.app.stop());

  it("pages 250 tasks 100, 100, 50 in key order, next_cursor null on the last page; 100 a page by default", async () => {
    const pages = await walk("/v1/tasks", "tasks", 100);
    expect(pages.map((p) => p.items.length)).toEqual([100, 100, 50]);
    expect(pages.map((p) => p.next === null)).toEqual([false, false, true]);
    expect(pages.flatMap((p) => p.items)).toEqual(taskKeys);
    const first = await page("/v1/tasks", "tasks", "");
    expect(first.items).toEqual(taskKeys.slice(0, 100));
    expect(first.next).toEqual(expect.any(String));
    expect((await walk("/v1/tasks", "tasks", 1000)).map((p) => p.items.length)).toEqual([250]);
  });

  it("pages agents, customers, rate cards and webhook endpoints the same way", async () => {
    for (const [segment, field] of [
      ["agents", "agents"],
      ["customers", "customers"],
      ["rate-cards", "rate_cards"],
    ] as const) {
      const pages = await walk(`/v1/${segment}`, field, 10);
      expect(
        pages.map((p) => p.items.length),
        segment,
      ).toEqual([10, 10, 5]);
      expect(
        pages.flatMap((p) => p.items),
        segment,
      ).toEqual(Array.from({ length: 25 }, (_, i) => `${segment}-${pad(i)}`));
      expect(pages.at(-1)!.next, segment).toBeNull();
    }
    const endpoints = await walk("/v1/webhook-endpoints", "webhook_endpoints", 5);
    expect(endpoints.map((p) => p.items.length)).toEqual([5, 5, 2]);
    expect(endpoints.flatMap((p) => p.items)).toEqual(endpointIds);
    // An exact last page says so: no empty page after it.
    expect((await walk("/v1/webhook-endpoints", "webhook_endpoints", 12)).map((p) => p.items.length)).toEqual([12]);
  });

  it("repeats and skips nothing when records are added and deleted between pages, and never lists a deleted one", async () => {
    const first = await page("/v1/agents", "agents", "limit=10");
    expect(first.items.at(-1)).toBe("agents-009");
    const changes = [
      call("DELETE", "/v1/agents/agents-003"), // already listed
      call("DELETE", "/v1/agents/agents-009"), // the key the cursor ends at
      call("DELETE", "/v1/agents/agents-015"), // not listed yet
      call("PUT", "/v1/agents/agents-005a", bodies.agents), // behind the cursor
      call("PUT", "/v1/agents/agents-015a", bodies.agents), // ahead of it
      call("PUT", "/v1/agents/agents-012", { name: "replaced", condition: "done" }), // replaced, still there
    ];
    for (const reply of await Promise.all(changes)) expect(reply.status).toBeLessThan(300);
    const rest = (await walk("/v1/agents", "agents", 10, first.next)).flatMap((p) => p.items);
    const seen = [...first.items, ...rest];
    expect(new Set(seen).size).toBe(seen.length);
    const expected = Array.from({ length: 25 }, (_, i) => `agents-${pad(i)}`).filter((key) => key !== "agents-015");
    expect(seen.filter((key) => key !== "agents-015a")).toEqual(expected);
    expect(rest).toContain("agents-015a");
    expect(rest).not.toContain("agents-005a");
    const now = (await walk("/v1/agents", "agents", 7)).flatMap((p) => p.items);
    expect(now).not.toContain("agents-003");
    expect(now).not.toContain("agents-009");
    expect(now).not.toContain("agents-015");
    expect(now).toContain("agents-005a");
  });

  it("answers a malformed, over-long or another list's cursor with 400 VALIDATION_ERROR on every record list", async () => {
    const agentsCursor = (await page("/v1/agents", "agents", "limit=1")).next!;
    const lists: [string, string][] = [
      ["/v1/tasks", "task"],
      ["/v1/agents", "agent"],
      ["/v1/customers", "customer"],
      ["/v1/rate-cards", "rate-card"],
      ["/v1/webhook-endpoints", "webhook-endpoint"],
    ];
    for (const [list, kind] of lists) {
      const garbage = [
        "garbage",
        "!!!",
        "YWJj",
        `${b64(`${kind}\nx`)}==`,
        b64(`${kind}\n`),
        b64(`${kind}x`),
        b64(`${kind}\n${"k".repeat(513)}`),
        b64(Buffer.from([...Buffer.from(`${kind}\n`), 0xff, 0xfe])),
        "A".repeat(6000),
        list === "/v1/agents" ? b64("task\nt001") : agentsCursor,
      ];
      for (const cursor of garbage) {
        const reply = await call("GET", `${list}?cursor=${encodeURIComponent(cursor)}`);
        expect([reply.status, reply.body], `${list} cursor=${cursor.slice(0, 40)}`).toMatchObject([
          400,
          { error: { code: "VALIDATION_ERROR", details: [{ path: "cursor" }] } },
        ]);
      }
      for (const limit of ["0", "1001", "-1", "1.5", "ten"]) {
        const reply = await call("GET", `${list}?limit=${limit}`);
        expect([reply.status, reply.body], `${list} limit=${limit}`).toMatchObject([
          400,
          { error: { code: "VALIDATION_ERROR", details: [{ path: "limit" }] } },
        ]);
      }
    }
  });
});
