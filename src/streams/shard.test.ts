// Shard routing is part of a deployment's data layout: the same outcome must map to the same shard in
// every version, or its events and state would be looked for in the wrong stream.
import { describe, expect, it } from "vitest";
import { shardOf } from "./shard.js";

describe("shardOf", () => {
  it.each([
    ["acct_1", "order:1", 31, 223],
    ["acct_1", "order:2", 50, 626],
    ["acct_2", "order:1", 50, 178],
    ["acct_x", "ключ:é", 22, 470],
    ["", "", 31, 287],
  ])("keeps %s / %s on shard %i of 64 and %i of 1024", (account, key, of64, of1024) => {
    expect(shardOf(account, key, 64)).toBe(of64);
    expect(shardOf(account, key, 1024)).toBe(of1024);
  });
});
