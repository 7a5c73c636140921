// Tokens at the edge: forged, other-secret and other-account tokens refused; rotation revokes the old token
// on every running node (two ingress apps here) before the next request; the CLI creates, shows and rotates.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startVerdict, type VerdictApp } from "../../src/app.js";
import { signToken } from "../../src/auth/token.js";
import { run as runAccount } from "../../src/cli/account.js";
import { run as runToken } from "../../src/cli/token.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { DEPLOYMENTS, envOf } from "../support/redis.js";
import { post, startTestApp, type TestApp } from "../ingress/support.js";

const event = { outcome_key: "o", action: "ping" };

describe.each(DEPLOYMENTS)("tokens (%s)", (deployment) => {
  let a: TestApp;
  let b: VerdictApp;
  let baseB: string;
  beforeAll(async () => {
    a = await startTestApp(deployment);
    // A second node of the same deployment: same prefix and secret, its own memory of generations.
    b = await startVerdict(a.options, { logger: silentLogger });
    baseB = `http://127.0.0.1:${b.port}`;
  });
  afterAll(async () => {
    await b.stop();
    await a.app.stop();
  });

  it("accepts the token on every node, including one that learns the account from Redis", async () => {
    expect((await post(a.base, "/v1/events", a.token, event)).status).toBe(202);
    expect((await post(baseB, "/v1/events", a.token, event)).status).toBe(202);
  });

  it("refuses forged tokens: another secret, a tampered account or generation, a bare signature", async () => {
    const [version, account, generation, signature] = a.token.split(".") as [string, string, string, string];
    const forged = [
      signToken("some-other-secret-1234567890", { accountId: a.accountId, generation: 1 }),
      `${version}.${account}x.${generation}.${signature}`,
      `${version}.${account}.${Number(generation) + 1}.${signature}`,
      `vt2.${account}.${generation}.${signature}`,
      signature,
      `${version}.${account}.${generation}.`,
    ];
    for (const token of forged) {
      for (const base of [a.base, baseB]) {
        const reply = await post(base, "/v1/events", token, event);
        expect(reply.status, token).toBe(401);
        expect((reply.body as { error: { code: string } }).error.code).toBe("TOKEN_INVALID");
      }
    }
  });

  it("scopes a token to its account: another account's token writes only as that account", async () => {
    const other = await a.accounts.create("other");
    expect(other.account_id).not.toBe(a.accountId);
    expect(other.token).not.toBe(a.token);
    // A token naming account A but signed as account B's generation is not a token of A.
    const [, , , otherSignature] = other.token.split(".") as [string, string, string, string];
    const spliced = `vt1.${a.accountId}.1.${otherSignature}`;
    expect((await post(a.base, "/v1/events", spliced, event)).status).toBe(401);
    expect((await post(baseB, "/v1/events", other.token, event)).status).toBe(202);
  });

  it("revokes the old token on every node as soon as rotate returns", async () => {
    const account = await a.accounts.create("rotating");
    // Both nodes know generation 1 (B learns it on first use).
    expect((await post(a.base, "/v1/events", account.token, event)).status).toBe(202);
    expect((await post(baseB, "/v1/events", account.token, event)).status).toBe(202);
    for (let round = 0; round < 5; round++) {
      const previous = (await a.accounts.show(account.account_id)).token;
      const rotated = await a.accounts.rotate(account.account_id);
      expect(rotated.token).not.toBe(previous);
      const [oldA, oldB, newA, newB] = await Promise.all([
        post(a.base, "/v1/events", previous, event),
        post(baseB, "/v1/events", previous, event),
        post(a.base, "/v1/events", rotated.token, event),
        post(baseB, "/v1/events", rotated.token, event),
      ]);
      expect([oldA.status, oldB.status, newA.status, newB.status]).toEqual([401, 401, 202, 202]);
      expect((await a.accounts.show(account.account_id)).token).toBe(rotated.token);
    }
  });

  describe("CLI", () => {
    let output: string[];
    beforeAll(() => {
      const env = {
        ...envOf(deployment),
        VERDICT_KEY_PREFIX: a.options.keyPrefix,
        VERDICT_TOKEN_SECRET: a.options.tokenSecret,
      };
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    });
    afterAll(() => vi.unstubAllEnvs());
    afterEach(() => vi.restoreAllMocks());

    const capture = async (
      run: (args: string[]) => Promise<number>,
      args: string[],
    ): Promise<{ code: number; json: { account_id: string; token: string } }> => {
      output = [];
      vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
        output.push(String(chunk));
        return true;
      });
      const code = await run(args);
      vi.restoreAllMocks();
      return { code, json: JSON.parse(output.join("")) as { account_id: string; token: string } };
    };

    it("account create, token show and token rotate print {account_id, token}; rotate revokes the old one", async () => {
      const created = await capture(runAccount, ["create", "Acme", "Inc"]);
      expect(created.code).toBe(0);
      expect(Object.keys(created.json)).toEqual(["account_id", "token"]);
      expect(created.json.account_id).toMatch(/^acct_[A-Za-z0-9]{20}$/);
      expect(await a.accounts.name(created.json.account_id)).toBe("Acme Inc");
      expect((await post(baseB, "/v1/events", created.json.token, event)).status).toBe(202);

      const shown = await capture(runToken, ["show", created.json.account_id]);
      expect(shown.json).toEqual(created.json);

      const rotated = await capture(runToken, ["rotate", created.json.account_id]);
      expect(rotated.json.account_id).toBe(created.json.account_id);
      expect(rotated.json.token).not.toBe(created.json.token);
      expect((await post(baseB, "/v1/events", created.json.token, event)).status).toBe(401);
      expect((await post(a.base, "/v1/events", created.json.token, event)).status).toBe(401);
      expect((await post(baseB, "/v1/events", rotated.json.token, event)).status).toBe(202);
    });

    it("token show of an unknown account exits 1", async () => {
      const errors: string[] = [];
      vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
        errors.push(String(chunk));
        return true;
      });
      expect(await runToken(["show", "acct_missing"])).toBe(1);
      expect(errors.join("")).toContain("acct_missing");
    });
  });
});
