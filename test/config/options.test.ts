// Configuration the service refuses to start with: a token secret too short or too regular to sign with,
// the bind addresses of the API and metrics ports, the webhook disable period and the outcome caps.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { optionsFromEnv } from "../../src/config/env.js";
import { ConfigError } from "../../src/config/options.js";

const base = { REDIS_URL: "redis://127.0.0.1:1" };

describe("token secret", () => {
  it("refuses a secret under 32 bytes or of little entropy", () => {
    for (const secret of [
      "aaaaaaaaaaaaaaaa",
      "a".repeat(64),
      "abcd".repeat(16),
      "0123456789abcdef0123456789abcdef",
      randomBytes(16).toString("hex"),
      randomBytes(16).toString("base64url"),
    ]) {
      expect(() => optionsFromEnv({ ...base, VERDICT_TOKEN_SECRET: secret }), secret).toThrow(ConfigError);
    }
  });

  it("accepts what the README says to generate", () => {
    for (let i = 0; i < 200; i++) {
      for (const secret of [
        randomBytes(32).toString("base64"),
        randomBytes(32).toString("hex"),
        randomBytes(32).toString("base64url"),
      ]) {
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
    const set = optionsFromEnv({
      ...base,
      VERDICT_TOKEN_SECRET: secret,
      VERDICT_HOST: "127.0.0.1",
      VERDICT_METRICS_HOST: "::1",
    });
    expect([set.host, set.metricsHost]).toEqual(["127.0.0.1", "::1"]);
  });
});

describe("webhook disable period", () => {
  it("is 5 days unless VERDICT_WEBHOOK_DISABLE_AFTER gives a duration, and refuses anything else", () => {
    const env = { ...base, VERDICT_TOKEN_SECRET: randomBytes(32).toString("base64") };
    expect(optionsFromEnv(env).webhookDisableAfterMs).toBe(5 * 24 * 3600 * 1000);
    expect(optionsFromEnv({ ...env, VERDICT_WEBHOOK_DISABLE_AFTER: "36h" }).webhookDisableAfterMs).toBe(
      36 * 3600 * 1000,
    );
    expect(optionsFromEnv({ ...env, VERDICT_WEBHOOK_DISABLE_AFTER: "1500ms" }).webhookDisableAfterMs).toBe(1500);
    for (const bad of ["5", "five days", "0s", "-1d", "1d,2d"])
      expect(() => optionsFromEnv({ ...env, VERDICT_WEBHOOK_DISABLE_AFTER: bad }), bad).toThrow(ConfigError);
  });
});

describe("webhook log limits", () => {
  it("keeps messages 7 days and 2000 per endpoint unless VERDICT_WEBHOOK_RETENTION and VERDICT_WEBHOOK_LOG_MAX say otherwise", () => {
    const env = { ...base, VERDICT_TOKEN_SECRET: randomBytes(32).toString("base64") };
    expect(optionsFromEnv(env)).toMatchObject({ webhookRetentionMs: 7 * 24 * 3600 * 1000, webhookLogMax: 2000 });
    expect(optionsFromEnv({ ...env, VERDICT_WEBHOOK_RETENTION: "36h", VERDICT_WEBHOOK_LOG_MAX: "50" })).toMatchObject({
      webhookRetentionMs: 36 * 3600 * 1000,
      webhookLogMax: 50,
    });
    for (const bad of ["7", "500ms", "-1d"])
      expect(() => optionsFromEnv({ ...env, VERDICT_WEBHOOK_RETENTION: bad }), bad).toThrow(ConfigError);
    for (const bad of ["0", "1.5", "many"])
      expect(() => optionsFromEnv({ ...env, VERDICT_WEBHOOK_LOG_MAX: bad }), bad).toThrow(ConfigError);
  });
});

describe("duration settings", () => {
  const secret = randomBytes(32).toString("base64url");

  it("reads a duration in ms, s, m, h or d, and a schedule of them", () => {
    const options = optionsFromEnv({
      ...base,
      VERDICT_TOKEN_SECRET: secret,
      VERDICT_HOT_RETENTION: "90m",
      VERDICT_ARCHIVE_STALL: "10s",
      VERDICT_WEBHOOK_DISABLE_AFTER: " 5d ",
      VERDICT_WEBHOOK_RETRY_SCHEDULE: "250ms, 5s,2h",
    });
    expect(options.hotRetentionMs).toBe(90 * 60_000);
    expect(options.archiveStallMs).toBe(10_000);
    expect(options.webhookDisableAfterMs).toBe(5 * 86_400_000);
    expect(options.webhookRetryScheduleMs).toEqual([250, 5000, 7_200_000]);
  });

  it("refuses anything else, naming the setting", () => {
    for (const [name, value] of [
      ["VERDICT_HOT_RETENTION", "24"],
      ["VERDICT_HOT_RETENTION", "1.5h"],
      ["VERDICT_ARCHIVE_STALL", "30"],
      ["VERDICT_WEBHOOK_DISABLE_AFTER", "5 days"],
      ["VERDICT_WEBHOOK_RETRY_SCHEDULE", "5s,,2h"],
      ["VERDICT_WEBHOOK_RETRY_SCHEDULE", "5s;5m"],
    ] as const) {
      expect(
        () => optionsFromEnv({ ...base, VERDICT_TOKEN_SECRET: secret, [name]: value }),
        `${name}=${value}`,
      ).toThrow(new RegExp(name));
    }
  });
});

describe("outcome caps", () => {
  it("take their defaults unless VERDICT_OUTCOME_MAX_* say otherwise, and refuse a snapshot cap under 1 KiB", () => {
    const env = { ...base, VERDICT_TOKEN_SECRET: randomBytes(32).toString("base64") };
    expect(optionsFromEnv(env).outcomeCaps).toEqual({
      maxActions: 256,
      maxValueBytes: 16_384,
      maxEventBytes: 262_144,
      maxSnapshotBytes: 65_536,
    });
    const set = {
      VERDICT_OUTCOME_MAX_ACTIONS: "10",
      VERDICT_OUTCOME_MAX_VALUE_BYTES: "100",
      VERDICT_OUTCOME_MAX_EVENT_BYTES: "1000",
      VERDICT_OUTCOME_MAX_SNAPSHOT_BYTES: "4096",
    };
    expect(optionsFromEnv({ ...env, ...set }).outcomeCaps).toEqual({
      maxActions: 10,
      maxValueBytes: 100,
      maxEventBytes: 1000,
      maxSnapshotBytes: 4096,
    });
    expect(() => optionsFromEnv({ ...env, VERDICT_OUTCOME_MAX_SNAPSHOT_BYTES: "100" })).toThrow(
      /outcomeCaps.maxSnapshotBytes/,
    );
    expect(() => optionsFromEnv({ ...env, VERDICT_OUTCOME_MAX_ACTIONS: "0" })).toThrow(ConfigError);
  });
});
