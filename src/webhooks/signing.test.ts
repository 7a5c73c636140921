import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newEndpointSecret, signatureHeader } from "./signing.js";
import { retryDelayMs } from "./dispatcher.js";

describe("signing", () => {
  it("makes signatures standardwebhooks verifies, one per live secret", () => {
    const current = newEndpointSecret();
    const previous = newEndpointSecret();
    const body = JSON.stringify({ type: "outcome.confirmed", timestamp: new Date().toISOString(), data: { key: "k" } });
    const timestamp = Math.floor(Date.now() / 1000);
    const header = signatureHeader([current, previous], "msg_1", timestamp, Buffer.from(body));
    expect(header.split(" ")).toHaveLength(2);
    const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(timestamp), "webhook-signature": header };
    expect(new Webhook(current).verify(body, headers)).toMatchObject({ type: "outcome.confirmed" });
    expect(new Webhook(previous).verify(body, headers)).toMatchObject({ type: "outcome.confirmed" });
    expect(() => new Webhook(newEndpointSecret()).verify(body, headers)).toThrow();
  });
});

describe("retry schedule", () => {
  it("follows the schedule with at most 10% jitter, then gives up", () => {
    const schedule = [5000, 300_000];
    expect(retryDelayMs(schedule, 1, () => 0)).toBe(4500);
    expect(retryDelayMs(schedule, 1, () => 1)).toBe(5500);
    expect(retryDelayMs(schedule, 2, () => 0.5)).toBe(300_000);
    expect(retryDelayMs(schedule, 3)).toBeUndefined();
  });
});
