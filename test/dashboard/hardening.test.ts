// The dashboard against what a visitor or another tenant can send it (issue 37's reproducers): headers from
// request text, event-stream injection, notices, over-long keys, sign-in and sign-up floods, live pages.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { safeNext } from "../../src/dashboard/pages/sign-in.js";
import { LIVE_STREAMS_PER_SESSION } from "../../src/dashboard/live-hub.js";
import { SIGN_IN_MAX_DELAY_MS, SIGN_UP_PER_NETWORK } from "../../src/dashboard/sign-in-limit.js";
import { eventually, metricValue, startTestApp, type TestApp } from "../support/app.js";
import { RawConnection, rawRequestBytes } from "../support/raw-http.js";
import { FormClient } from "./form-client.js";

const unique = (name: string): string => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const PASSWORD = "a long enough password";

interface StreamEvent {
  type: string;
  data: string;
}

/** Events as a browser's EventSource reads them (HTML Living Standard, 9.2.6): CR, LF and CRLF all end a line. */
function parseEventStream(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  let type = "";
  let data: string[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // the line still being received
  for (const line of lines) {
    if (line === "") {
      if (data.length > 0) events.push({ type: type || "message", data: data.join("\n") });
      type = "";
      data = [];
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") type = value;
    else if (field === "data") data.push(value);
  }
  return events;
}

interface OpenStream {
  status: number;
  events(): StreamEvent[];
  close(): void;
}

async function openStream(base: string, path: string, cookie: string): Promise<OpenStream> {
  const abort = new AbortController();
  const response = await fetch(`${base}${path}`, { headers: { cookie }, signal: abort.signal });
  let text = "";
  if (response.status === 200 && response.body) {
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
          text += decoder.decode(chunk, { stream: true });
      } catch {
        // Closed by the test.
      }
    })();
  } else {
    await response.text();
  }
  return { status: response.status, events: () => parseEventStream(text), close: () => abort.abort() };
}

/** A form post from a given loopback address, so limits per client address can be seen. */
function postFrom(
  localAddress: string,
  base: string,
  path: string,
  fields: Record<string, string>,
): Promise<{ status: number; text: string; location: string | undefined }> {
  const body = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      {
        method: "POST",
        localAddress,
        headers: {
          origin: base,
          "content-type": "application/x-www-form-urlencoded",
          "content-length": Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, location: res.headers.location }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("dashboard hardening", () => {
  let t: TestApp;
  /** Added to the app's business clock, which the sign-in delays are measured on. */
  let offset = 0;
  beforeAll(async () => {
    t = await startTestApp("standalone", {}, { clock: () => Date.now() + offset });
  });
  afterAll(() => t?.stop());

  const prefixKeys = async (): Promise<string[]> => {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await t.app.redis.scan(cursor, "MATCH", `${t.options.keyPrefix}*`, "COUNT", 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== "0");
    return keys;
  };

  it("accepts only a dashboard path as next; a crafted link cannot set a header", async () => {
    for (const bad of [
      "//evil.example",
      "https://evil.example/dashboard",
      "/dashboardx",
      "/dashboard//evil.example",
      "/dashboard/\\evil",
      "/dashboard\r\nSet-Cookie: a=b",
      "/dashboard/\0",
      "/dashboard/ x",
    ]) {
      expect(safeNext(bad), JSON.stringify(bad)).toBe("/dashboard");
    }
    for (const good of ["/dashboard", "/dashboard/", "/dashboard/outcomes/a%2Fb?cursor=x", "/dashboard?x=1"])
      expect(safeNext(good)).toBe(good);

    const email = unique("next");
    await new FormClient(t.base).signUp(email, "Next Co");
    const link = await new FormClient(t.base).get(
      "/dashboard/sign-in?next=/dashboard%0d%0aSet-Cookie:%20verdict_session=attacker",
    );
    expect(link.text).toContain('name="next" value="/dashboard"');

    // The form as the crafted page would post it, read off the socket as sent.
    const body = new URLSearchParams({
      email,
      password: PASSWORD,
      next: "/dashboard\r\nSet-Cookie: verdict_session=attacker",
    }).toString();
    const raw = await RawConnection.open(t.app.port);
    try {
      const headers = [
        "Origin: http://verdict.test",
        "Content-Type: application/x-www-form-urlencoded",
        `Content-Length: ${Buffer.byteLength(body)}`,
      ];
      raw.write(rawRequestBytes("POST", "/dashboard/sign-in", headers, body));
      const reply = await raw.read();
      expect(reply.status).toBe(303);
      expect(reply.headers.get("location")).toEqual(["/dashboard"]);
      expect(reply.headers.get("set-cookie")).toHaveLength(1);
      expect(reply.head).not.toContain("attacker");
    } finally {
      raw.destroy();
    }
  });

  it("shows a CR in an action or idempotency key as text in the live page, never as a stream event", async () => {
    const owner = new FormClient(t.base);
    await owner.signUp(unique("stream"), "Stream Co");
    const token = await owner.token();
    expect((await t.request("PUT", "/v1/tasks/review", { name: "Review", condition: "done" }, token)).status).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: "pr/cr", task_key: "review" }, token)).status).toBe(201);
    const stream = await openStream(t.base, "/dashboard/outcomes/pr%2Fcr/live", owner.cookie);
    try {
      expect(stream.status).toBe(200);
      const action = "step\revent: injected\rdata: <p>pwned</p>";
      const event = { outcome_key: "pr/cr", action, idempotency_key: "key\r\revent: injected\rdata: again" };
      expect((await t.request("POST", "/v1/events", event, token)).status).toBe(202);
      const shown = await eventually(
        () => Promise.resolve(stream.events().find((e) => e.data.includes("&lt;p&gt;pwned"))),
        15_000,
        "the event on the live page",
      );
      expect(stream.events().map((e) => e.type)).toEqual(stream.events().map(() => "update"));
      expect(shown.data).toContain("step\nevent: injected\ndata: &lt;p&gt;pwned&lt;/p&gt;");
      expect(shown.data).toContain("key\n\nevent: injected\ndata: again");
    } finally {
      stream.close();
    }
  });

  it("shows fixed words for a notice code, never text from the URL", async () => {
    const visitor = new FormClient(t.base);
    await visitor.signUp(unique("notice"), "Notice Co");
    const planted = "Your account is suspended, call 555 0100";
    for (const query of [
      `saved=${encodeURIComponent(planted)}`,
      `deleted=${encodeURIComponent(planted)}`,
      `notice=${encodeURIComponent(planted)}`,
    ]) {
      const reply = await visitor.get(`/dashboard/tasks?${query}`);
      expect(reply.status).toBe(200);
      expect(reply.text).not.toContain("suspended");
      expect(reply.text).not.toContain('class="notice ok"');
    }
    expect((await visitor.get("/dashboard/tasks?notice=saved")).text).toContain("The task was saved.");
    expect((await visitor.get("/dashboard/agents?notice=deleted")).text).toContain("The agent was deleted.");
  });

  it("answers 404 for an over-long key in a dashboard URL", async () => {
    const visitor = new FormClient(t.base);
    await visitor.signUp(unique("long"), "Long Co");
    const key = "k".repeat(600);
    for (const path of [
      `/dashboard/outcomes/${key}`,
      `/dashboard/outcomes/${key}/live`,
      `/dashboard/tasks/${key}/edit`,
      `/dashboard/webhooks/${key}`,
    ]) {
      const reply = await visitor.get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.text).toContain("There is no such page.");
    }
  });

  it("refuses an email over 254 bytes before storing anything, and keys the limiter by the email's hash", async () => {
    const before = (await prefixKeys()).filter((key) => key.includes("signin:"));
    const huge = `${"x".repeat(60_000)}@example.com`;
    const reply = await new FormClient(t.base).signIn(huge, "whatever it is here");
    expect(reply.status).toBe(400);
    const after = await prefixKeys();
    expect(after.filter((key) => key.includes("signin:")).sort()).toEqual(before.sort());
    expect(after.some((key) => key.includes("xxxxxxxxxx"))).toBe(false);
    expect((await new FormClient(t.base).signUpOnly(huge, "Huge Co")).status).toBe(400);
    expect((await prefixKeys()).some((key) => key.includes("xxxxxxxxxx"))).toBe(false);

    const email = unique("hashed");
    await new FormClient(t.base).signIn(email, "not the password");
    const emailKeys = (await prefixKeys()).filter((key) => key.includes("signin:email:"));
    expect(emailKeys.length).toBeGreaterThan(0);
    expect(emailKeys.some((key) => key.includes(email) || key.includes(email.split("@")[0]!))).toBe(false);
  });

  it("slows guesses at one email from many addresses without keeping its owner out", async () => {
    const email = unique("owner");
    await new FormClient(t.base).signUp(email, "Owner Co");
    for (let i = 0; i < 10; i++) {
      // Each guess after the previous one's delay: ten wrong passwords from ten addresses.
      offset += SIGN_IN_MAX_DELAY_MS;
      const reply = await postFrom(`127.0.0.${20 + i}`, t.base, "/dashboard/sign-in", {
        email,
        password: `wrong guess ${i}`,
      });
      expect(reply.status, `guess ${i}`).toBe(400);
      expect(reply.text).toContain("Invalid email or password");
    }
    expect((await prefixKeys()).some((key) => key.endsWith("signin:address:127.0.0.29"))).toBe(true);

    // The guesser is slowed: the next try must wait, whatever the password.
    const slowed = await postFrom("127.0.0.30", t.base, "/dashboard/sign-in", { email, password: "wrong guess 10" });
    expect(slowed.status).toBe(429);
    expect(slowed.text).toMatch(/Too many sign-in attempts\. Try again in \d+ seconds?\./);

    // The owner waits at most the longest delay, then gets in; after that the delays start over.
    const owner = new FormClient(t.base);
    const first = await owner.signIn(email, PASSWORD);
    if (first.status === 429) {
      const seconds = Number(/Try again in (\d+) second/.exec(first.text)?.[1]);
      expect(seconds * 1000).toBeLessThanOrEqual(SIGN_IN_MAX_DELAY_MS);
      offset += seconds * 1000;
      expect((await owner.signIn(email, PASSWORD)).status).toBe(303);
    } else {
      expect(first.status).toBe(303);
    }
    expect((await new FormClient(t.base).signIn(email, "wrong again")).status).toBe(400);
  });

  it("answers sign-up the same whether or not the email is taken, and changes nothing of a taken one", async () => {
    const taken = unique("taken");
    await new FormClient(t.base).signUp(taken, "First Co");
    const fresh = await new FormClient(t.base).signUpOnly(unique("fresh"), "Fresh Co", "another long password");
    const again = await new FormClient(t.base).signUpOnly(taken, "Second Co", "another long password");
    for (const reply of [fresh, again]) {
      expect(reply.status).toBe(303);
      expect(reply.setCookie).toEqual([]);
    }
    expect(again.location).toBe(fresh.location);
    expect(again.text).toBe(fresh.text);
    expect((await new FormClient(t.base).signIn(taken, "another long password")).status).toBe(400);
    const owner = new FormClient(t.base);
    expect((await owner.signIn(taken, PASSWORD)).status).toBe(303);
    expect((await owner.get("/dashboard/")).text).toContain("First Co");
  });

  it(`limits sign-ups per client address (${SIGN_UP_PER_NETWORK} an hour)`, { timeout: 120_000 }, async () => {
    const email = unique("flood");
    const form = { email, password: PASSWORD, account_name: "Flood Co" };
    for (let i = 0; i < SIGN_UP_PER_NETWORK; i++)
      expect((await postFrom("127.0.0.40", t.base, "/dashboard/sign-up", form)).status).toBe(303);
    const refused = await postFrom("127.0.0.40", t.base, "/dashboard/sign-up", {
      ...form,
      email: unique("flood-more"),
    });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain("Too many sign-ups from your network.");
    expect((await postFrom("127.0.0.41", t.base, "/dashboard/sign-up", form)).status).toBe(303);
  });

  it(`keeps at most ${LIVE_STREAMS_PER_SESSION} live streams per session`, async () => {
    const email = unique("streams");
    const owner = new FormClient(t.base);
    await owner.signUp(email, "Streams Co");
    const token = await owner.token();
    expect((await t.request("PUT", "/v1/tasks/review", { name: "Review", condition: "done" }, token)).status).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: "watched", task_key: "review" }, token)).status).toBe(201);
    const streams: OpenStream[] = [];
    try {
      for (let i = 0; i < LIVE_STREAMS_PER_SESSION; i++)
        streams.push(await openStream(t.base, "/dashboard/outcomes/watched/live", owner.cookie));
      expect(streams.map((s) => s.status)).toEqual(streams.map(() => 200));
      const extra = await openStream(t.base, "/dashboard/outcomes/watched/live", owner.cookie);
      expect(extra.status).toBe(429);
      // Another session of the same user has its own streams.
      const other = new FormClient(t.base);
      expect((await other.signIn(email, PASSWORD)).status).toBe(303);
      streams.push(await openStream(t.base, "/dashboard/outcomes/watched/live", other.cookie));
      expect(streams.at(-1)!.status).toBe(200);
      // Closing one frees its place.
      streams.shift()!.close();
      const reopened = await eventually(async () => {
        const attempt = await openStream(t.base, "/dashboard/outcomes/watched/live", owner.cookie);
        if (attempt.status === 200) return attempt;
        return undefined;
      });
      streams.push(reopened);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it("renders a live outcome once per change, however many pages show it", async () => {
    const email = unique("viewers");
    const owner = new FormClient(t.base);
    await owner.signUp(email, "Viewers Co");
    const token = await owner.token();
    expect(
      (await t.request("PUT", "/v1/tasks/review", { name: "Review", condition: "COUNT(reply)>=3" }, token)).status,
    ).toBe(201);
    expect((await t.request("POST", "/v1/outcomes", { key: "shared", task_key: "review" }, token)).status).toBe(201);
    const sessions = [owner, new FormClient(t.base), new FormClient(t.base)];
    for (const session of sessions.slice(1)) expect((await session.signIn(email, PASSWORD)).status).toBe(303);
    const before = await metricValue(t.app.metricsPort, "verdict_dashboard_live_renders_total");
    const viewers = await Promise.all(
      sessions.map((session) => openStream(t.base, "/dashboard/outcomes/shared/live", session.cookie)),
    );
    try {
      for (const action of ["first", "second"]) {
        expect(
          (
            await t.request(
              "POST",
              "/v1/events",
              { outcome_key: "shared", action: "reply", properties: { value: action } },
              token,
            )
          ).status,
        ).toBe(202);
        for (const viewer of viewers) {
          await eventually(
            () => Promise.resolve(viewer.events().at(-1)?.data.includes(`&quot;${action}&quot;`) ? true : undefined),
            15_000,
            `${action} on every page`,
          );
        }
      }
      const renders = (await metricValue(t.app.metricsPort, "verdict_dashboard_live_renders_total")) - before;
      const fragments = new Set(viewers.flatMap((viewer) => viewer.events().map((e) => e.data)));
      // Each distinct view took a render, and no view was rendered once per page (that would be three each).
      expect(renders).toBeGreaterThanOrEqual(fragments.size);
      expect(renders).toBeLessThan(fragments.size * 2);
    } finally {
      for (const viewer of viewers) viewer.close();
    }
  });
});
