// Configuration the service refuses to start with: a token secret too short or too regular to sign with,
// the bind addresses of the API and metrics ports, and the webhook disable period.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { optionsFromEnv } from "../../src/config/env.js";
import { ConfigError } from "../../src/config/options.js";

const base = { REDIS_URL: "redis://127.0.0.1:1" };

describe("token secret", () => {
  it("refuses a secret under 32 bytes or of little entropy", () => {
    for (const secret of ["aaaaaaaaaaaaaaaa", "a".repeat(64), "abcd".repeat(16), "0123456789abcdef0123456789abcdef", randomBytes(16).toString("hex"), randomBytes(16).toString("base64url")]) {
      expect(() => optionsFromEnv({ ...base, VERDICT_TOKEN_SECRET: secret }), secret).toThrow(ConfigError);
    }
  });

  it("accepts what the README says to generate", () => {
    for (let i = 0; i < 200; i++) {
      for (const secret of [randomBytes(32).toString("base64"), randomBytes(32).toString("hex"), randomBytes(32).toString("base64url")]) {
        expect(optionsFromEnv({ ...base, VERDICT_TOKEN_SECRET: secret }).tokenSecret).toBe(secret);
      }
    }
  });
});

describe("bind addresses", () => {
  it("listens on every interface unless VERDICT_HOST / VERDICT_METRICS_HOST say otherwise", () => {
    const secret = randomBytes(32).toString("base64");
    const defaults = optionsFromEnv({ ...base, VERDICT_TOKEN_SECRET: secret });
    expect([defaults.host, defaults.metricsHost]).toEqual([undefined, undefined]);
    const set = optionsFromEnv({ ...base, VERDICT_TOKEN_SECRET: secret, VERDICT_HOST: "127.0.0.1", VERDICT_METRICS_HOST: "::1" });
    expect([set.host, set.metricsHost]).toEqual(["127.0.0.1", "::1"]);
  });
});

describe("webhook disable period", () => {
  it("is 5 days unless VERDICT_WEBHOOK_DISABLE_AFTER gives a duration, and refuses anything else", () => {
    const env = { ...base, VERDICT_TOKEN_SECRET: randomBytes(32).toString("base64") };
    expect(optionsFromEnv(env).webhookDisableAfterMs).toBe(5 * 24 * 3600 * 1000);
    expect(optionsFromEnv({ ...env, VERDICT_WEBHOOK_DISABLE_AFTER: "36h" }).webhookDisableAfterMs).toBe(36 * 3600 * 1000);
    expect(optionsFromEnv({ ...env, VERDICT_WEBHOOK_DISABLE_AFTER: "1500ms" }).webhookDisableAfterMs).toBe(1500);
    for (const bad of ["5", "five days", "0s", "-1d", "1d,2d"]) expect(() => optionsFromEnv({ ...env, VERDICT_WEBHOOK_DISABLE_AFTER: bad }), bad).toThrow(ConfigError);
  });
});
