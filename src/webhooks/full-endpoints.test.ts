import { describe, expect, it } from "vitest";
import { FullEndpoints } from "./full-endpoints.js";

describe("FullEndpoints", () => {
  it("keeps a shard's set over passes for its time, then starts a fresh one", () => {
    const full = new FullEndpoints(1000);
    full.of(3, 0).add("a\ne");
    expect(full.of(3, 999).has("a\ne")).toBe(true);
    expect(full.of(4, 999).size).toBe(0);
    expect(full.of(3, 1000).size).toBe(0);
  });
});
