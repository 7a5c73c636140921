import { describe, expect, it } from "vitest";
import { reconnectBackoff } from "./archive-db.js";

describe("the archive pool's reconnect backoff", () => {
  it("starts at tens of milliseconds and never waits more than 2 s, however many connections failed", () => {
    expect(reconnectBackoff(0)).toBeLessThanOrEqual(0.05);
    for (let retries = 0; retries <= 200; retries++) {
      const seconds = reconnectBackoff(retries);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(2);
    }
    expect(reconnectBackoff(200)).toBeGreaterThanOrEqual(1);
  });
});
