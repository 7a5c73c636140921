// Clauses false at a verdict and how the verdict came, on real conditions folded through the engine.
import { describe, expect, it } from "vitest";
import { applyEvent, settle } from "./apply.js";
import { conditionClauses, falseClausesAtVerdict, verdictCause } from "./clauses.js";
import { compileCondition } from "./compile.js";
import { parseCondition } from "./parse.js";
import { initialState } from "./state.js";

const compiled = (text: string) => compileCondition(parseCondition(text));

describe("clauses", () => {
  it("are the leaves under AND and OR, NOT x and G/F whole, with ids stable per condition text", () => {
    const c = compiled("a AND (b OR NOT x) AND G(COUNT(e)<3) AND NOT (y AND z)");
    const clauses = conditionClauses(c);
    expect(clauses.map((clause) => clause.text)).toEqual(["a", "b", "NOT x", "G(COUNT(e)<3)", "NOT (y AND z)"]);
    expect(clauses.map((clause) => clause.id.split(".")[1])).toEqual(["1", "2", "3", "4", "5"]);
    expect(conditionClauses(compiled("a AND (b OR NOT x) AND G(COUNT(e)<3) AND NOT (y AND z)"))).toEqual(clauses);
    expect(conditionClauses(compiled("a AND b"))[0]!.id).not.toBe(clauses[0]!.id);
  });

  it("counts every false leaf, under OR too, at a locked failure", () => {
    const c = compiled("a AND NOT x AND (b OR c)");
    const state = initialState(c, 0);
    applyEvent(c, state, { action: "x", properties: undefined, at: 1000 });
    expect(state.verdict).toEqual({ kind: "fail", at: 1000 });
    expect(falseClausesAtVerdict(c, state).map((clause) => clause.text)).toEqual(["a", "NOT x", "b", "c"]);
    expect(verdictCause(c, state)).toBe("locked");
  });

  it("tells a deadline from a quiescence confirmation", () => {
    const forced = compiled("a AND b");
    const late = initialState(forced, 0);
    applyEvent(forced, late, { action: "a", properties: undefined, at: 10 });
    settle(forced, late, 5000);
    expect(verdictCause(forced, late)).toBe("deadline");
    expect(falseClausesAtVerdict(forced, late).map((clause) => clause.text)).toEqual(["b"]);

    const quiet = compiled("ping AND IDLE(1m)");
    const idle = initialState(quiet, 0);
    applyEvent(quiet, idle, { action: "ping", properties: undefined, at: 10 });
    settle(quiet, idle, 3_600_000);
    expect(idle.verdict).toEqual({ kind: "confirm", at: 60_010 });
    expect(verdictCause(quiet, idle)).toBe("idle");
  });
});
