// The condition field's live check: canonical text, or a person-readable error with its column.
import { describe, expect, it } from "vitest";
import { checkCondition } from "./condition-check.js";

describe("checkCondition", () => {
  it("gives the canonical text of a valid condition", () => {
    expect(checkCondition("(a AND b) AND COUNT(x) >= 2", false)).toEqual({
      ok: true,
      canonical: "a AND b AND COUNT(x)>=2",
    });
  });

  it("gives the parse error as a sentence with its column", () => {
    expect(checkCondition("COUNT(a >= 2", false)).toEqual({ ok: false, error: "Expected ')' at column 9.", column: 9 });
    expect(checkCondition("  ", false)).toMatchObject({
      ok: false,
      error: expect.stringContaining("Enter a condition") as string,
    });
  });

  it("refuses properties other than value for agents", () => {
    expect(checkCondition("review:score>=4", true).ok).toBe(false);
    expect(checkCondition("review:value>=4", true).ok).toBe(true);
  });
});
