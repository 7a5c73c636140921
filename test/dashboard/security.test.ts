// The dashboard's defences over plain HTTP: security headers, cookie flags, CSRF and Origin checks, one
// account never seeing another's data, closed sign-up and `verdict user add` (limits: hardening.test.ts).
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { run as runUser } from "../../src/cli/user.js";
import { SESSION_IDLE_MS, SESSION_MAX_MS, Sessions } from "../../src/dashboard/sessions.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { RawConnection, rawRequestBytes } from "../support/raw-http.js";
import { envOf } from "../support/redis.js";
import { FormClient } from "./form-client.js";

const unique = (name: string): string => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

describe("dashboard security", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("standalone", { role: "ingress" });
  });
  afterAll(() => t?.stop());

  it("puts a strict CSP, X-Frame-Options and Referrer-Policy on every answer", async () => {
    for (const path of [
      "/dashboard/sign-in",
      "/dashboard/token",
      "/dashboard/static/dashboard.js",
      "/dashboard/nowhere",
    ]) {
      const response = await fetch(`${t.base}${path}`, { redirect: "manual" });
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("referrer-policy")).toBe("same-origin");
    }
    const signIn = await (await fetch(`${t.base}/dashboard/sign-in`)).text();
    expect(signIn).not.toMatch(/<script(?![^>]*\bsrc=)/);
  });

  it("refuses framing that could smuggle a request on its pages too: 400, and the connection closed", async () => {
    for (const headers of [["Content-Length: 0", "Content-Length: 0"], ["Transfer-Encoding: gzip, chunked"]]) {
      const c = await RawConnection.open(Number(new URL(t.base).port));
      try {
        c.write(rawRequestBytes("POST", "/dashboard/sign-in", headers));
        const reply = await c.read();
        expect(reply.status, headers.join()).toBe(400);
        expect(reply.headers.get("content-security-policy")?.[0]).toContain("default-src 'none'");
        expect(await c.waitClosed()).toBe(true);
      } finally {
        c.destroy();
      }
    }
  });

  it("sets the session cookie HttpOnly, SameSite=Strict, Path=/dashboard, and not Secure over http", async () => {
    const visitor = new FormClient(t.base);
    const reply = await visitor.signUp(unique("cookie"), "Cookie Co");
    expect(reply.status).toBe(303);
    const [cookie] = reply.setCookie;
    expect(cookie).toMatch(/^verdict_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/dashboard");
    expect(cookie).not.toContain("Secure");
  });

  it("marks the cookie Secure and accepts only the public origin when VERDICT_PUBLIC_URL is https", async () => {
    const secure = await startTestApp("standalone", { role: "ingress", publicUrl: "https://verdict.example.com" });
    try {
      const fromElsewhere = new FormClient(secure.base);
      expect((await fromElsewhere.signUp(unique("secure"), "Secure Co")).status).toBe(403);
      const visitor = new FormClient(secure.base, "https://verdict.example.com");
      const reply = await visitor.signUp(unique("secure"), "Secure Co");
      expect(reply.status).toBe(303);
      expect(reply.setCookie[0]).toContain("; Secure");
    } finally {
      await secure.stop();
    }
  });

  it("refuses a POST without the session's CSRF token or from another origin, and changes nothing", async () => {
    const visitor = new FormClient(t.base);
    await visitor.signUp(unique("csrf"), "Csrf Co");
    const token = await visitor.token();
    const csrf = await visitor.csrf();
    const attempts = [
      visitor.post("/dashboard/token/new", {}),
      visitor.post("/dashboard/token/new", { _csrf: "x".repeat(csrf.length) }),
      visitor.post("/dashboard/token/new", { _csrf: csrf }, { origin: "https://evil.example" }),
      visitor.post("/dashboard/token/new", { _csrf: csrf }, {}),
      visitor.post("/dashboard/sign-out", { _csrf: csrf }, { origin: "null" }),
    ];
    for (const reply of await Promise.all(attempts)) expect(reply.status).toBe(403);
    expect(await visitor.token()).toBe(token);
    expect((await visitor.get("/dashboard/token")).status).toBe(200);

    // Without a session (no cookie) a post is refused the same way.
    const stranger = new FormClient(t.base);
    expect((await stranger.post("/dashboard/token/new", { _csrf: csrf })).status).toBe(403);
    expect(await visitor.token()).toBe(token);

    const accepted = await visitor.post("/dashboard/token/new", { _csrf: csrf });
    expect(accepted.status).toBe(303);
    expect(await visitor.token()).not.toBe(token);
  });

  it("shows each account only its own token", async () => {
    const a = new FormClient(t.base);
    const b = new FormClient(t.base);
    await a.signUp(unique("a"), "A Co");
    await b.signUp(unique("b"), "B Co");
    const tokenA = await a.token();
    const tokenB = await b.token();
    expect(tokenA).not.toBe(tokenB);
    expect(tokenA.split(".")[1]).not.toBe(tokenB.split(".")[1]);
  });

  it("says the same for an unknown email as for a wrong password", async () => {
    const reply = await new FormClient(t.base).signIn(unique("nobody"), "whatever it is here");
    expect(reply.status).toBe(400);
    expect(reply.text).toContain("Invalid email or password");
  });

  it("ends a session after 12 hours idle or 7 days in all, and slides the idle expiry on use", async () => {
    const sessions = new Sessions(t.app.redis, t.app.keys);
    const start = Date.now();
    const session = await sessions.create(t.accountId, "timer@example.com", start);
    const key = t.app.keys.dashboardSession(createHash("sha256").update(session.id).digest("base64url"));
    expect(await t.app.redis.pttl(key)).toBeGreaterThan(SESSION_IDLE_MS - 5000);
    await t.app.redis.pexpire(key, 1000);
    expect(await sessions.touch(session.id, start + 1000)).toMatchObject({
      accountId: t.accountId,
      email: "timer@example.com",
    });
    expect(await t.app.redis.pttl(key)).toBeGreaterThan(SESSION_IDLE_MS - 5000);
    // Near the absolute end the idle expiry shrinks to what is left; past it the session is gone.
    await sessions.touch(session.id, start + SESSION_MAX_MS - 60_000);
    expect(await t.app.redis.pttl(key)).toBeLessThanOrEqual(60_000);
    expect(await sessions.touch(session.id, start + SESSION_MAX_MS)).toBeUndefined();
    expect(await t.app.redis.exists(key)).toBe(0);
  });

  describe("with sign-up closed", () => {
    let closed: TestApp;
    beforeAll(async () => {
      closed = await startTestApp("standalone", { role: "ingress", dashboardSignup: "closed" });
      const env = {
        ...envOf("standalone"),
        VERDICT_KEY_PREFIX: closed.options.keyPrefix,
        VERDICT_TOKEN_SECRET: closed.options.tokenSecret,
      };
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    });
    afterAll(async () => {
      vi.unstubAllEnvs();
      await closed?.stop();
    });

    it("refuses sign-up; `verdict user add` adds a user to an existing account who can then sign in", async () => {
      const visitor = new FormClient(closed.base);
      expect((await visitor.get("/dashboard/sign-up")).status).toBe(403);
      const email = unique("operator");
      expect((await visitor.signUp(email, "Nope")).status).toBe(403);
      expect((await visitor.signIn(email, "a long enough password")).status).toBe(400);

      const output: string[] = [];
      vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
        output.push(String(chunk));
        return true;
      });
      vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      try {
        expect(await runUser(["add", closed.accountId, email], Readable.from(["too short\n"]))).toBe(1);
        expect(await runUser(["add", "acct_missing", email], Readable.from(["a long enough password\n"]))).toBe(1);
        expect(await runUser(["add", closed.accountId, email], Readable.from(["a long enough password\n"]))).toBe(0);
      } finally {
        vi.restoreAllMocks();
      }
      expect(JSON.parse(output.join(""))).toEqual({ account_id: closed.accountId, email });
      expect((await visitor.signIn(email, "a long enough password")).status).toBe(303);
      expect(await visitor.token()).toBe(closed.token);
    });
  });
});
