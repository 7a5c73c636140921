// UUID v7: the RFC 9562 layout (version 7, variant 10), the timestamp in front, and no repeats.
import { describe, expect, it } from "vitest";
import { uuidv7 } from "./uuid-v7.js";

describe("uuidv7", () => {
  it("has the v7 layout with the milliseconds in front", () => {
    const id = uuidv7(0x0190_1234_5678);
    expect(id).toMatch(/^01901234-5678-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("sorts by time and does not repeat", () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => uuidv7(1_700_000_000_000 + Math.floor(i / 100)));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id, i) => i === 0 || id.slice(0, 13) >= ids[i - 1]!.slice(0, 13))).toBe(true);
  });
});
