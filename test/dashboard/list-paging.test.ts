// The dashboard's lists show one page of the API's default size (100) with "Next page" and "First page"
// links carrying the API's cursor; a cursor edited, cut short or far too long is a 404 page, never a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { FormClient } from "./form-client.js";

const pad = (i: number): string => String(i).padStart(3, "0");
const unescape = (text: string): string =>
  text.replaceAll("&amp;", "&").replaceAll("&#39;", "'").replaceAll("&quot;", '"');

/** The keys a record list page links to, and its pager's links. */
function listed(text: string, segment: string): { keys: string[]; next?: string; first?: string } {
  const keys = [...text.matchAll(new RegExp(`href="/dashboard/${segment}/([^"/]+)/edit"`, "g"))].map((match) =>
    decodeURIComponent(match[1]!),
  );
  const next = /<a href="([^"]*)" rel="next">Next page<\/a>/.exec(text)?.[1];
  const first = /<a href="([^"]*)">First page<\/a>/.exec(text)?.[1];
  return {
    keys,
    ...(next !== undefined && { next: unescape(next) }),
    ...(first !== undefined && { first: unescape(first) }),
  };
}

describe("dashboard list paging", () => {
  let t: TestApp;
  let visitor: FormClient;
  let token = "";
  const api = (method: string, path: string, body?: unknown): ReturnType<TestApp["request"]> =>
    t.request(method, path, body, token);

  beforeAll(async () => {
    t = await startTestApp("standalone", { webhookAllowPrivateUrls: true });
    visitor = new FormClient(t.base);
    expect((await visitor.signUp(`pager-${Date.now()}@example.com`, "Pager Co")).status).toBe(303);
    token = await visitor.token();
    for (let i = 0; i < 150; i++)
      expect((await api("PUT", `/v1/tasks/task-${pad(i)}`, { name: `Task ${i}`, condition: "done" })).status).toBe(201);
    for (let i = 0; i < 3; i++)
      expect((await api("PUT", `/v1/customers/customer-${i}`, { name: `Customer ${i}` })).status).toBe(201);
  }, 120_000);
  afterAll(() => t?.stop());

  it("shows 100 tasks, then the other 50 behind Next page, with First page back", async () => {
    const first = await visitor.get("/dashboard/tasks");
    expect(first.status).toBe(200);
    const one = listed(first.text, "tasks");
    expect(one.keys).toEqual(Array.from({ length: 100 }, (_, i) => `task-${pad(i)}`));
    expect(one.first).toBeUndefined();
    expect(one.next).toMatch(/^\?cursor=/);

    const second = await visitor.get(`/dashboard/tasks${one.next!}`);
    expect(second.status).toBe(200);
    const two = listed(second.text, "tasks");
    expect(two.keys).toEqual(Array.from({ length: 50 }, (_, i) => `task-${pad(i + 100)}`));
    expect(two.next).toBeUndefined();
    expect(two.first).toBe("?");

    // A task deleted and one added behind the cursor change nothing on the second page; one ahead shows.
    await api("DELETE", "/v1/tasks/task-120");
    await api("PUT", "/v1/tasks/task-050a", { name: "Behind", condition: "done" });
    await api("PUT", "/v1/tasks/task-149a", { name: "Ahead", condition: "done" });
    const again = listed((await visitor.get(`/dashboard/tasks${one.next!}`)).text, "tasks").keys;
    expect(again).toEqual([...two.keys.filter((key) => key !== "task-120"), "task-149a"]);
  });

  it("shows a short list on one page without a pager", async () => {
    const reply = await visitor.get("/dashboard/customers");
    expect(reply.status).toBe(200);
    expect(listed(reply.text, "customers")).toEqual({ keys: ["customer-0", "customer-1", "customer-2"] });
  });

  it("answers an edited, cut short, another list's or over-long cursor on every list with a 404 page", async () => {
    const taskCursor = new URLSearchParams(
      listed((await visitor.get("/dashboard/tasks")).text, "tasks").next!.slice(1),
    ).get("cursor")!;
    const endpoint = (await api("POST", "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hook" })).body as {
      id: string;
    };
    const lists = [
      "tasks",
      "agents",
      "customers",
      "rate-cards",
      "outcomes",
      "dead-letters",
      "charges",
      "webhooks",
      `webhooks/${endpoint.id}`,
    ];
    // Cut to a length no base64 text has (a cut that still decodes is a key to page from, like any other).
    const cut = taskCursor.slice(0, Math.floor((taskCursor.length - 2) / 4) * 4 + 1);
    const cursors = [
      "garbage",
      cut,
      `${taskCursor}x`,
      "A".repeat(3000),
      Buffer.from(`task\n${"k".repeat(600)}`).toString("base64url"),
    ];
    for (const list of lists) {
      for (const cursor of list === "tasks" ? cursors : [...cursors, taskCursor]) {
        const reply = await visitor.get(`/dashboard/${list}?cursor=${encodeURIComponent(cursor)}`);
        expect(reply.status, `${list} cursor=${cursor.slice(0, 40)}`).toBe(404);
        expect(reply.text).toContain("No such page");
        expect(reply.text).toContain(`href="/dashboard/${list}">First page</a>`);
      }
    }
  });
});
