// Example tables: text to canonical text, and (condition, events, now) to annotation, verdict and progress.
import { describe, expect, test } from "vitest";
import { compileCondition, formatCondition, parseCondition, replay, type TruthValue } from "./index.js";

const s = (n: number): number => n * 1000;
const m = (n: number): number => s(n * 60);
const h = (n: number): number => m(n * 60);
const d = (n: number): number => h(n * 24);

describe("canonical text", () => {
  const table: Array<[input: string, canonical: string]> = [
    ["COUNT(agent_response) >= 2", "COUNT(agent_response)>=2"],
    ["COUNT( agent_response )>=2", "COUNT(agent_response)>=2"],
    ["review:score>=4", "review:score>=4"],
    ["review:score >= 4", "review:score>=4"],
    ["review:value >= 4", "review>=4"],
    ["review:meta.overall>4.5", "review:meta.overall>4.5"],
    ["NOT   escalated", "NOT escalated"],
    ["a AND (b AND c)", "a AND b AND c"],
    ["(a OR b) OR c", "a OR b OR c"],
    ["a AND (b OR c)", "a AND (b OR c)"],
    ["(a AND b) OR c", "a AND b OR c"],
    ["a OR b AND c", "a OR b AND c"],
    ["NOT a AND b", "NOT a AND b"],
    ["NOT (a AND b)", "NOT (a AND b)"],
    ["NOT(a)", "NOT a"],
    ["NOT NOT a", "NOT NOT a"],
    ["((a))", "a"],
    ["G((a OR b))", "G(a OR b)"],
    ["F( x )", "F(x)"],
    ["G (a)", "G(a)"],
    ["NOT F(a AND b)", "NOT F(a AND b)"],
    ["IDLE(90m)", "IDLE(1h30m)"],
    ["IDLE(P1DT2H)", "IDLE(1d2h)"],
    ["IDLE(7d)", "IDLE(1w)"],
    ["IDLE( 1d12h )", "IDLE(1d12h)"],
    ["IDLE(3600s)", "IDLE(1h)"],
    ['tier == "gold"', 'tier=="gold"'],
    ['x == "a\\u0062\\n"', 'x=="ab\\n"'],
    ["x>=1.50", "x>=1.5"],
    ["x>=1e3", "x>=1000"],
    ["x==-0", "x==0"],
    ["x>-2.5E-3", "x>-0.0025"],
    ["f==true AND g!=false", "f==true AND g!=false"],
    ['x MATCHES "^a+$"', 'x MATCHES "^a+$"'],
    ['review:comment  MATCHES  "(?i)great"', 'review:comment MATCHES "(?i)great"'],
    ["G AND F AND IDLE AND COUNT", "G AND F AND IDLE AND COUNT"],
    ["COUNT>=1", "COUNT>=1"],
    ["and OR or", "and OR or"],
    ["a.b-c:d.e_f<3", "a.b-c:d.e_f<3"],
    ["AND.x OR NOT-x", "AND.x OR NOT-x"],
    ['{"fact": "review:score", "operator": "gte", "value": 4}', "review:score>=4"],
    ['{"count": "agent_response", "operator": "gte", "value": 2}', "COUNT(agent_response)>=2"],
    ['{"all": [{"action": "a"}, {"not": {"action": "escalated"}}]}', "a AND NOT escalated"],
    [
      '{"any": [{"all": [{"action": "a"}, {"action": "b"}]}, {"any": [{"action": "c"}, {"idle": "P1DT2H"}]}]}',
      "a AND b OR c OR IDLE(1d2h)",
    ],
    ['{"all": [{"action": "a"}]}', "a"],
    ['{"eventually": {"fact": "c", "operator": "match", "value": "^x"}}', 'F(c MATCHES "^x")'],
    ['{"always": {"fact": "c:value", "operator": "ne", "value": "no"}}', 'G(c!="no")'],
    ['{"not": {"any": [{"action": "a"}, {"action": "b"}]}}', "NOT (a OR b)"],
  ];
  test.each(table)("%s -> %s", (input, canonical) => {
    const parsed = parseCondition(input);
    expect(formatCondition(parsed)).toBe(canonical);
    expect(parseCondition(canonical)).toEqual(parsed);
  });
});

type Event = [action: string, properties: Record<string, unknown> | undefined, at: number];

interface Example {
  condition: string;
  events?: Event[];
  created?: number;
  now: number;
  annotated: string;
  value?: TruthValue;
  /** The verdict the service reaches by `now`, with its instant; null while open. */
  verdict: ["confirm" | "fail", number] | null;
  progress?: number;
  settlement?: "confirm" | "fail";
  wake?: number | null;
}

const FULL = "COUNT(agent_response)>=2 AND NOT escalated AND customer_csat_set AND IDLE(1d)";

const examples: Example[] = [
  // The spec's own strings, verbatim.
  {
    condition: FULL,
    events: [
      ["agent_response", undefined, s(1)],
      ["agent_response", undefined, s(2)],
      ["agent_response", undefined, s(3)],
    ],
    now: s(3) + h(1),
    annotated: "✓COUNT(agent_response)>=2[3] AND ~NOT escalated AND ✗customer_csat_set AND ✗IDLE(1d)[23h]",
    value: "false",
    verdict: null,
    progress: (1 + 1 + 0 + 1 / 24) / 4,
    settlement: "fail",
    wake: s(3) + d(1),
  },
  {
    condition: "F(review:score>=4)",
    events: [["review", { score: 5 }, s(5)]],
    now: s(10),
    annotated: "✓F(~review:score>=4[5])",
    value: "locked_true",
    verdict: ["confirm", s(5)],
    progress: 1,
  },
  {
    condition: "NOT (a AND b)",
    now: s(10),
    annotated: "~NOT (✗a AND ✗b)",
    value: "true",
    verdict: null,
    progress: 1,
    settlement: "confirm",
  },
  {
    condition: "IDLE(2s)",
    now: s(5),
    annotated: "~IDLE(2s)[0s]",
    value: "true",
    verdict: ["confirm", s(2)],
    progress: 1,
    wake: null,
  },
  { condition: "IDLE(1d)", now: s(1), annotated: "✗IDLE(1d)[23h59m]", value: "false", verdict: null, wake: d(1) },
  { condition: "IDLE(1h)", now: 0, annotated: "✗IDLE(1h)[1h]", verdict: null, progress: 0 },
  { condition: "IDLE(2w)", now: s(1), annotated: "✗IDLE(2w)[1w6d]", verdict: null },
  {
    condition: "customer_csat_set",
    now: s(1),
    annotated: "✗customer_csat_set",
    value: "false",
    verdict: null,
    progress: 0,
    settlement: "fail",
  },
  {
    condition: "NOT escalated",
    now: s(1),
    annotated: "~NOT escalated",
    value: "true",
    verdict: null,
    settlement: "confirm",
  },
  {
    condition: "COUNT(agent_response)>=2",
    events: [
      ["agent_response", undefined, s(1)],
      ["agent_response", undefined, s(2)],
      ["agent_response", undefined, s(3)],
    ],
    now: s(9),
    annotated: "✓COUNT(agent_response)>=2[2]",
    verdict: ["confirm", s(2)],
  },
  // Actions and NOT.
  {
    condition: "NOT escalated",
    events: [["escalated", undefined, s(4)]],
    now: s(9),
    annotated: "⊘NOT escalated",
    value: "locked_false",
    verdict: ["fail", s(4)],
    progress: 0,
  },
  {
    condition: "a",
    events: [
      ["a", undefined, s(1)],
      ["b", undefined, s(2)],
    ],
    now: s(9),
    annotated: "✓a",
    verdict: ["confirm", s(1)],
  },
  { condition: "NOT NOT a", now: s(1), annotated: "✗NOT NOT a", value: "false", verdict: null, progress: 0 },
  {
    condition: "a OR b",
    events: [["b", undefined, s(1)]],
    now: s(2),
    annotated: "✗a OR ✓b",
    verdict: ["confirm", s(1)],
    progress: 1,
  },
  {
    condition: "a AND (b OR c)",
    events: [["a", undefined, s(1)]],
    now: s(2),
    annotated: "✓a AND (✗b OR ✗c)",
    value: "false",
    verdict: null,
    progress: 0.5,
  },
  {
    condition: "(a OR b) AND NOT c",
    events: [["a", undefined, s(1)]],
    now: s(2),
    annotated: "(✓a OR ✗b) AND ~NOT c",
    value: "true",
    verdict: null,
    progress: 1,
  },
  {
    condition: "a AND NOT b",
    events: [
      ["a", undefined, s(1)],
      ["b", undefined, s(2)],
    ],
    now: s(3),
    annotated: "✓a AND ⊘NOT b",
    verdict: ["fail", s(2)],
    progress: 0.5,
  },
  // COUNT, every operator.
  {
    condition: "COUNT(a)>=2",
    events: [["a", undefined, s(1)]],
    now: s(2),
    annotated: "✗COUNT(a)>=2[1]",
    verdict: null,
    progress: 0.5,
  },
  {
    condition: "COUNT(a)>2",
    events: [["a", undefined, s(1)]],
    now: s(2),
    annotated: "✗COUNT(a)>2[1]",
    verdict: null,
    progress: 1 / 3,
  },
  {
    condition: "COUNT(a)>2",
    events: [1, 2, 3].map((i): Event => ["a", undefined, s(i)]),
    now: s(9),
    annotated: "✓COUNT(a)>2[3]",
    verdict: ["confirm", s(3)],
    progress: 1,
  },
  {
    condition: "COUNT(a)<2",
    now: s(1),
    annotated: "~COUNT(a)<2[0]",
    value: "true",
    verdict: null,
    progress: 1,
    settlement: "confirm",
  },
  {
    condition: "COUNT(a)<2",
    events: [
      ["a", undefined, s(1)],
      ["a", undefined, s(2)],
    ],
    now: s(3),
    annotated: "⊘COUNT(a)<2[2]",
    verdict: ["fail", s(2)],
    progress: 0,
  },
  {
    condition: "COUNT(a)<=1",
    events: [["a", undefined, s(1)]],
    now: s(3),
    annotated: "~COUNT(a)<=1[1]",
    verdict: null,
    progress: 1,
  },
  {
    condition: "COUNT(a)==2",
    events: [["a", undefined, s(1)]],
    now: s(3),
    annotated: "✗COUNT(a)==2[1]",
    value: "false",
    verdict: null,
    progress: 0,
  },
  {
    condition: "COUNT(a)==2",
    events: [
      ["a", undefined, s(1)],
      ["a", undefined, s(2)],
    ],
    now: s(3),
    annotated: "~COUNT(a)==2[2]",
    value: "true",
    verdict: null,
    progress: 1,
    settlement: "confirm",
  },
  {
    condition: "COUNT(a)==2",
    events: [1, 2, 3].map((i): Event => ["a", undefined, s(i)]),
    now: s(9),
    annotated: "⊘COUNT(a)==2[3]",
    verdict: ["fail", s(3)],
  },
  { condition: "COUNT(a)!=2", now: s(1), annotated: "~COUNT(a)!=2[0]", verdict: null, progress: 1 },
  {
    condition: "COUNT(a)!=2",
    events: [
      ["a", undefined, s(1)],
      ["a", undefined, s(2)],
    ],
    now: s(3),
    annotated: "✗COUNT(a)!=2[2]",
    verdict: null,
    progress: 0,
  },
  {
    condition: "COUNT(a)!=2",
    events: [1, 2, 3].map((i): Event => ["a", undefined, s(i)]),
    now: s(9),
    annotated: "✓COUNT(a)!=2[3]",
    verdict: ["confirm", s(3)],
  },
  // Locked at creation, but verdicts come only at points.
  {
    condition: "COUNT(a)>=0",
    now: s(1),
    annotated: "✓COUNT(a)>=0[0]",
    value: "locked_true",
    verdict: null,
    progress: 1,
    settlement: "confirm",
  },
  {
    condition: "COUNT(a)>=0",
    events: [["b", undefined, s(1)]],
    now: s(2),
    annotated: "✓COUNT(a)>=0[0]",
    verdict: ["confirm", s(1)],
  },
  // Comparisons: latest value, no coercion, explicit null is set.
  {
    condition: 'tier=="gold"',
    events: [["tier", { value: "gold" }, s(1)]],
    now: s(2),
    annotated: '~tier=="gold"["gold"]',
    value: "true",
    verdict: null,
    progress: 1,
  },
  {
    condition: 'tier=="gold"',
    now: s(2),
    annotated: '✗tier=="gold"[unset]',
    value: "false",
    verdict: null,
    progress: 0,
  },
  {
    condition: "csat>=4",
    events: [["csat", { value: "5" }, s(1)]],
    now: s(2),
    annotated: '✗csat>=4["5"]',
    verdict: null,
  },
  {
    condition: "csat>=4",
    events: [["csat", { value: 4.5 }, s(1)]],
    now: s(2),
    annotated: "~csat>=4[4.5]",
    verdict: null,
  },
  {
    condition: "csat==1",
    events: [["csat", { value: true }, s(1)]],
    now: s(2),
    annotated: "✗csat==1[true]",
    verdict: null,
  },
  {
    condition: "flag==true",
    events: [["flag", { value: true }, s(1)]],
    now: s(2),
    annotated: "~flag==true[true]",
    verdict: null,
  },
  {
    condition: "x!=1",
    events: [["x", { value: null }, s(1)]],
    now: s(2),
    annotated: "~x!=1[null]",
    value: "true",
    verdict: null,
  },
  {
    condition: "x!=1",
    events: [["x", undefined, s(1)]],
    now: s(2),
    annotated: "✗x!=1[unset]",
    value: "false",
    verdict: null,
  },
  {
    condition: 'name<"m"',
    events: [["name", { value: "alice" }, s(1)]],
    now: s(2),
    annotated: '~name<"m"["alice"]',
    verdict: null,
  },
  {
    condition: "review:score>=4",
    events: [
      ["review", { score: 5 }, s(1)],
      ["review", { score: 2 }, s(2)],
    ],
    now: s(3),
    annotated: "✗review:score>=4[2]",
    verdict: null,
  },
  {
    condition: "review:score>=4",
    events: [
      ["review", { score: 5 }, s(1)],
      ["review", { other: 1 }, s(2)],
    ],
    now: s(3),
    annotated: "~review:score>=4[5]",
    verdict: null,
  },
  {
    condition: "review:meta.overall>=4",
    events: [["review", { meta: { overall: 4 } }, s(1)]],
    now: s(2),
    annotated: "~review:meta.overall>=4[4]",
    verdict: null,
  },
  {
    condition: "review:meta.overall>=4",
    events: [["review", { meta: [4] }, s(1)]],
    now: s(2),
    annotated: "✗review:meta.overall>=4[unset]",
    verdict: null,
  },
  {
    condition: "x:constructor==1",
    events: [["x", {}, s(1)]],
    now: s(2),
    annotated: "✗x:constructor==1[unset]",
    verdict: null,
  },
  {
    condition: "x==1",
    events: [["x", { value: { a: 1 } }, s(1)]],
    now: s(2),
    annotated: '✗x==1[{"a":1}]',
    verdict: null,
  },
  {
    condition: 'x=="né ✓"',
    events: [["x", { value: "né ✓" }, s(1)]],
    now: s(2),
    annotated: '~x=="né ✓"["né ✓"]',
    verdict: null,
  },
  // MATCHES searches, only strings match.
  {
    condition: 'comment MATCHES "^ok"',
    events: [["comment", { value: "ok then" }, s(1)]],
    now: s(2),
    annotated: '~comment MATCHES "^ok"["ok then"]',
    verdict: null,
    progress: 1,
  },
  {
    condition: 'comment MATCHES "ok"',
    events: [["comment", { value: "not ok" }, s(1)]],
    now: s(2),
    annotated: '~comment MATCHES "ok"["not ok"]',
    verdict: null,
  },
  {
    condition: 'comment MATCHES "^ok$"',
    events: [["comment", { value: "not ok" }, s(1)]],
    now: s(2),
    annotated: '✗comment MATCHES "^ok$"["not ok"]',
    verdict: null,
  },
  {
    condition: 'comment MATCHES "5"',
    events: [["comment", { value: 5 }, s(1)]],
    now: s(2),
    annotated: '✗comment MATCHES "5"[5]',
    verdict: null,
  },
  // G and F.
  {
    condition: "G(NOT escalated)",
    events: [["x", undefined, s(1)]],
    now: s(2),
    annotated: "~G(~NOT escalated)",
    value: "true",
    verdict: null,
    settlement: "confirm",
  },
  {
    condition: "G(NOT escalated)",
    events: [["escalated", undefined, s(1)]],
    now: s(2),
    annotated: "⊘G(⊘NOT escalated)",
    verdict: ["fail", s(1)],
    progress: 0,
  },
  {
    condition: "G(a)",
    now: s(1),
    annotated: "~G(✗a)",
    value: "true",
    verdict: null,
    progress: 0,
    settlement: "confirm",
  },
  {
    condition: "G(a)",
    events: [
      ["b", undefined, s(1)],
      ["a", undefined, s(2)],
    ],
    now: s(3),
    annotated: "⊘G(✗a)",
    verdict: ["fail", s(1)],
  },
  {
    condition: "G(COUNT(a)>=0)",
    now: s(1),
    annotated: "✓G(✓COUNT(a)>=0[0])",
    value: "locked_true",
    verdict: null,
    settlement: "confirm",
  },
  {
    condition: "G(COUNT(a)<3)",
    events: [
      ["a", undefined, s(1)],
      ["a", undefined, s(2)],
    ],
    now: s(3),
    annotated: "~G(~COUNT(a)<3[2])",
    verdict: null,
    progress: 1,
  },
  { condition: "F(a)", now: s(1), annotated: "✗F(✗a)", value: "false", verdict: null, settlement: "fail" },
  { condition: "F(a)", events: [["a", undefined, s(1)]], now: s(2), annotated: "✓F(✓a)", verdict: ["confirm", s(1)] },
  { condition: "F(NOT a)", now: s(1), annotated: "✗F(~NOT a)", value: "false", verdict: null, settlement: "fail" },
  {
    condition: "F(NOT a)",
    events: [["b", undefined, s(1)]],
    now: s(2),
    annotated: "✓F(~NOT a)",
    verdict: ["confirm", s(1)],
  },
  {
    condition: "F(COUNT(a)<1)",
    events: [["a", undefined, s(1)]],
    now: s(2),
    annotated: "⊘F(⊘COUNT(a)<1[1])",
    verdict: ["fail", s(1)],
  },
  {
    condition: "F(COUNT(a)>=4)",
    events: [
      ["a", undefined, s(1)],
      ["a", undefined, s(2)],
    ],
    now: s(3),
    annotated: "✗F(✗COUNT(a)>=4[2])",
    verdict: null,
    progress: 0.5,
  },
  { condition: "NOT F(a)", now: s(1), annotated: "~NOT F(✗a)", value: "true", verdict: null },
  { condition: "F(G(a))", now: s(1), annotated: "✗F(~G(✗a))", value: "false", verdict: null },
  {
    condition: "F(G(a))",
    events: [["a", undefined, s(1)]],
    now: s(2),
    annotated: "✓F(✓G(✓a))",
    verdict: ["confirm", s(1)],
  },
  {
    condition: "G(F(a))",
    events: [["b", undefined, s(1)]],
    now: s(2),
    annotated: "⊘G(✗F(✗a))",
    verdict: ["fail", s(1)],
  },
  {
    condition: "G(IDLE(1h))",
    events: [["b", undefined, s(1)]],
    now: s(2),
    annotated: "⊘G(✗IDLE(1h)[1h])",
    verdict: ["fail", s(1)],
  },
  {
    condition: "F(IDLE(1h))",
    now: h(2),
    annotated: "✓F(~IDLE(1h)[0s])",
    value: "locked_true",
    verdict: ["confirm", h(1)],
  },
  // IDLE: quiescence confirms only, windows restart at each event, an expiry precedes a same-instant event.
  {
    condition: "a AND IDLE(1h)",
    events: [["a", undefined, s(10)]],
    now: h(2),
    annotated: "✓a AND ~IDLE(1h)[0s]",
    value: "true",
    verdict: ["confirm", s(10) + h(1)],
    progress: 1,
  },
  {
    condition: "a AND IDLE(1h)",
    events: [
      ["a", undefined, s(10)],
      ["b", undefined, m(30)],
    ],
    now: h(1),
    annotated: "✓a AND ✗IDLE(1h)[30m]",
    verdict: null,
    progress: 0.75,
    wake: m(90),
  },
  {
    condition: "a AND IDLE(1h)",
    events: [
      ["a", undefined, 0],
      ["b", undefined, h(1)],
    ],
    now: h(3),
    annotated: "✓a AND ~IDLE(1h)[0s]",
    verdict: ["confirm", h(1)],
  },
  {
    condition: "b AND IDLE(1h)",
    now: h(2),
    annotated: "✗b AND ~IDLE(1h)[0s]",
    value: "false",
    verdict: null,
    progress: 0.5,
    settlement: "fail",
    wake: null,
  },
  {
    condition: "G(NOT IDLE(1h))",
    now: h(2),
    annotated: "⊘G(✗NOT IDLE(1h)[0s])",
    value: "locked_false",
    verdict: null,
    settlement: "fail",
  },
  {
    condition: "IDLE(1h) AND IDLE(2h)",
    now: m(90),
    annotated: "~IDLE(1h)[0s] AND ✗IDLE(2h)[30m]",
    verdict: null,
    progress: 0.875,
    wake: h(2),
  },
  {
    condition: "IDLE(1h) AND IDLE(2h)",
    now: h(3),
    annotated: "~IDLE(1h)[0s] AND ~IDLE(2h)[0s]",
    verdict: ["confirm", h(2)],
  },
  { condition: "IDLE(1h)", now: m(15), annotated: "✗IDLE(1h)[45m]", verdict: null, progress: 0.25 },
  { condition: "IDLE(1h)", created: h(5), now: h(5) + s(1), annotated: "✗IDLE(1h)[59m59s]", verdict: null },
  {
    condition: "NOT IDLE(1h)",
    now: h(2),
    annotated: "✗NOT IDLE(1h)[0s]",
    value: "false",
    verdict: null,
    settlement: "fail",
  },
  // Progress: AND is the mean, OR the max, NOT 1 when true.
  {
    condition: "a AND COUNT(b)>=4",
    events: [["b", undefined, s(1)]],
    now: s(2),
    annotated: "✗a AND ✗COUNT(b)>=4[1]",
    verdict: null,
    progress: 0.125,
  },
  {
    condition: "a OR COUNT(b)>=4",
    events: [1, 2, 3].map((i): Event => ["b", undefined, s(i)]),
    now: s(9),
    annotated: "✗a OR ✗COUNT(b)>=4[3]",
    verdict: null,
    progress: 0.75,
  },
  {
    condition: "NOT COUNT(b)>=4",
    events: [["b", undefined, s(1)]],
    now: s(2),
    annotated: "~NOT COUNT(b)>=4[1]",
    verdict: null,
    progress: 1,
  },
];

describe("evaluation", () => {
  test.each(examples)("$condition at $now -> $annotated", (example) => {
    const compiled = compileCondition(parseCondition(example.condition));
    const events = (example.events ?? []).map(([action, properties, at]) => ({ action, properties, at }));
    const result = replay(compiled, events, { createdAt: example.created ?? 0, now: example.now });
    expect(result.evaluation.annotated).toBe(example.annotated);
    expect(result.verdict === null ? null : [result.verdict.kind, result.verdict.at]).toEqual(example.verdict);
    if (example.value !== undefined) expect(result.evaluation.value).toBe(example.value);
    if (example.progress !== undefined) expect(result.evaluation.progress).toBeCloseTo(example.progress, 12);
    if (example.settlement !== undefined) expect(result.settlement.kind).toBe(example.settlement);
    if (example.wake !== undefined) expect(result.evaluation.nextWakeAt).toBe(example.wake);
    if (result.verdict?.kind === "confirm") expect(result.evaluation.progress).toBe(1);
  });

  test("the table holds at least 60 evaluation examples", () => {
    expect(examples.length).toBeGreaterThanOrEqual(60);
  });
});
