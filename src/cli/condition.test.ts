// `verdict condition` driven through its run() with captured output, as a user would call it.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { run } from "./condition.js";

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await run(args, { out: (text) => (out += text), err: (text) => (err += text) });
  return { code, out, err };
}

const dir = mkdtempSync(join(tmpdir(), "verdict-condition-"));
function eventsFile(lines: unknown[]): string {
  const file = join(dir, `events-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n"));
  return file;
}

describe("verdict condition fmt", () => {
  test("prints the canonical text", async () => {
    expect(await cli("fmt", "COUNT( agent_response ) >= 2 AND (NOT escalated) AND IDLE(90m)")).toEqual({
      code: 0,
      out: "COUNT(agent_response)>=2 AND NOT escalated AND IDLE(1h30m)\n",
      err: "",
    });
  });

  test("accepts the JSON form, and prints it with --json", async () => {
    expect((await cli("fmt", '{"all": [{"action": "a"}, {"idle": "P1D"}]}')).out).toBe("a AND IDLE(1d)\n");
    expect((await cli("fmt", "--json", "a AND NOT b")).out).toBe('{"all":[{"action":"a"},{"not":{"action":"b"}}]}\n');
  });

  test("exits 1 with the parse error and a caret on stderr", async () => {
    const result = await cli("fmt", "a AND (b OR c");
    expect(result.code).toBe(1);
    expect(result.out).toBe("");
    expect(result.err).toBe("condition: expected ')' at column 14\n  a AND (b OR c\n               ^\n");
  });

  test("--variant B rejects property paths other than value", async () => {
    const result = await cli("fmt", "--variant", "B", "review:score>=4");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/only the 'value' property/);
  });

  test("usage errors exit 2", async () => {
    expect((await cli("fmt")).code).toBe(2);
    expect((await cli("fmt", "--nope", "a")).code).toBe(2);
    expect((await cli("bogus")).code).toBe(2);
    expect((await cli()).code).toBe(0);
  });
});

describe("verdict condition eval", () => {
  const full = "COUNT(agent_response)>=2 AND NOT escalated AND customer_csat_set AND IDLE(1d)";

  test("prints the spec's example state", async () => {
    const file = eventsFile([
      { action: "agent_response", at: "2026-01-01T00:00:01Z" },
      { action: "agent_response", properties: { value: "hi" }, at: "2026-01-01T00:00:02Z" },
      "",
      { action: "agent_response", at: "2026-01-01T00:00:03Z" },
    ]);
    const result = await cli("eval", "--condition", full, "--events", file, "--now", "2026-01-01T01:00:03Z");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({
      condition: full,
      annotated: "✓COUNT(agent_response)>=2[3] AND ~NOT escalated AND ✗customer_csat_set AND ✗IDLE(1d)[23h]",
      value: "false",
      verdict: "none",
      settlement: "fail",
      progress: (2 + 1 / 24) / 4,
      next_wake_at: "2026-01-02T00:00:03.000Z",
    });
  });

  test("stops at the first verdict and describes the state frozen there", async () => {
    const file = eventsFile([
      { action: "agent_response", at: "2026-01-01T00:00:01Z" },
      { action: "agent_response", at: "2026-01-01T00:00:02Z" },
      { action: "customer_csat_set", at: "2026-01-01T00:00:03Z" },
      { action: "escalated", at: "2026-01-03T00:00:00Z" },
    ]);
    const result = await cli("eval", "--condition", full, "--events", file, "--now", "2026-01-05T00:00:00Z");
    expect(JSON.parse(result.out)).toEqual({
      condition: full,
      annotated: "✓COUNT(agent_response)>=2[2] AND ~NOT escalated AND ✓customer_csat_set AND ~IDLE(1d)[0s]",
      value: "true",
      verdict: "confirm",
      settlement: "confirm",
      progress: 1,
      next_wake_at: null,
    });
  });

  test("settlement is the forced verdict at now", async () => {
    const file = eventsFile([{ action: "review", properties: { score: 5 }, at: "2026-01-01T00:00:00Z" }]);
    const result = await cli(
      "eval",
      "--condition",
      "review:score>=4",
      "--events",
      file,
      "--now",
      "2026-01-01T00:00:10Z",
    );
    expect(JSON.parse(result.out)).toMatchObject({
      annotated: "~review:score>=4[5]",
      value: "true",
      verdict: "none",
      settlement: "confirm",
    });
  });

  test("Variant B sees only value", async () => {
    const file = eventsFile([{ action: "csat", properties: { value: 5, score: 1 }, at: "2026-01-01T00:00:00Z" }]);
    const result = await cli(
      "eval",
      "--variant",
      "B",
      "--condition",
      "csat>=4",
      "--events",
      file,
      "--now",
      "2026-01-01T00:00:01Z",
    );
    expect(JSON.parse(result.out)).toMatchObject({ annotated: "~csat>=4[5]", value: "true" });
    expect(
      (await cli("eval", "--variant", "B", "--condition", "csat:score>=4", "--now", "2026-01-01T00:00:01Z")).code,
    ).toBe(1);
  });

  test("created-at defaults to the first event, or now", async () => {
    const none = await cli("eval", "--condition", "IDLE(1h)", "--now", "2026-01-01T00:00:00Z");
    expect(JSON.parse(none.out)).toMatchObject({
      annotated: "✗IDLE(1h)[1h]",
      next_wake_at: "2026-01-01T01:00:00.000Z",
    });
    const created = await cli(
      "eval",
      "--condition",
      "IDLE(1h)",
      "--created-at",
      "2025-12-31T23:30:00Z",
      "--now",
      "2026-01-01T00:00:00Z",
    );
    expect(JSON.parse(created.out)).toMatchObject({ annotated: "✗IDLE(1h)[30m]", progress: 0.5 });
  });

  test("ignores events after now, with a note", async () => {
    const file = eventsFile([{ action: "a", at: "2026-01-02T00:00:00Z" }]);
    const result = await cli(
      "eval",
      "--condition",
      "a",
      "--events",
      file,
      "--now",
      "2026-01-01T00:00:00Z",
      "--created-at",
      "2026-01-01T00:00:00Z",
    );
    expect(JSON.parse(result.out)).toMatchObject({ annotated: "✗a", verdict: "none" });
    expect(result.err).toBe("ignoring 1 event(s) after --now\n");
  });

  test("bad events exit 1 naming the line; bad options exit 2", async () => {
    const bad = await cli(
      "eval",
      "--condition",
      "a",
      "--events",
      eventsFile([
        { action: "a", at: "2026-01-01T00:00:00Z" },
        { action: "", at: "x" },
      ]),
    );
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^events line 2: "action" must be a non-empty string/);
    const badTime = await cli("eval", "--condition", "a", "--events", eventsFile([{ action: "a", at: "yesterday" }]));
    expect(badTime.err).toMatch(/^events line 1: "at" must be an ISO 8601 time/);
    expect((await cli("eval", "--condition", "a", "--events", join(dir, "missing.jsonl"))).code).toBe(1);
    expect((await cli("eval")).code).toBe(2);
    expect((await cli("eval", "--condition", "a", "--now", "soon")).code).toBe(2);
    expect((await cli("eval", "--condition", "a", "--variant", "C")).code).toBe(2);
  });
});
