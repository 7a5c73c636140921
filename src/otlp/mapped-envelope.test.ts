// Events the mapping made get the envelope the event routes' validation would give them, or its refusal:
// mappedEnvelope builds the envelope itself only where the mapping's output is valid by construction.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateEvent } from "../ingress/validate-events.js";
import { mapSpan, type SpanKeys } from "./map-span.js";
import { mappedEnvelope, validAsMapped } from "./mapped-envelope.js";
import { withDefaults } from "./mapping-config.js";
import type { AttributeValue, OtlpSpan } from "./spans.js";
import { eventInput } from "./trace-keys.js";

const STAMP = { accountId: "acct", receivedAt: 1_700_000_000_000 };

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.constantFrom("\ud800", "a\udc00b", "2030-01-31T12:00:00Z", "not a time", "x".repeat(513), "x".repeat(512)),
);
const scalar = fc.oneof(
  { arbitrary: fc.string({ maxLength: 12 }), weight: 8 },
  { arbitrary: fc.nat(1_000_000), weight: 8 },
  text,
  fc.double(),
  fc.integer(),
  fc.constantFrom(1e300, 2 ** 53 + 2, -(2 ** 60), Number.NaN, Number.POSITIVE_INFINITY),
  fc.boolean(),
  fc.constant(null),
);
const value: fc.Arbitrary<AttributeValue> = fc.letrec<{ value: AttributeValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { arbitrary: scalar, weight: 6 },
    { arbitrary: fc.array(tie("value"), { maxLength: 3 }), weight: 2 },
    { arbitrary: fc.dictionary(fc.string({ maxLength: 4 }), tie("value"), { maxKeys: 3 }), weight: 1 },
  ),
})).value;

/** Names the mapping reads, plus `settles_at` and one it does not, each maybe present with any value. */
const NAMES = [
  "gen_ai.operation.name",
  "gen_ai.tool.name",
  "gen_ai.agent.name",
  "gen_ai.request.model",
  "gen_ai.provider.name",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gen_ai.response.finish_reasons",
  "gen_ai.tool.type",
  "error.type",
  "verdict.value",
  "settles_at",
  "app.extra",
];
const attributes = fc.record(Object.fromEntries(NAMES.map((n) => [n, value])), { requiredKeys: [] });
const operation = fc.constantFrom("chat", "execute_tool", "invoke_agent", "embeddings");
const key = fc.option(fc.oneof({ arbitrary: fc.string({ minLength: 1, maxLength: 12 }), weight: 6 }, text), {
  nil: undefined,
});

describe("mappedEnvelope", () => {
  it("gives every mapped event what validateEvent gives it", () => {
    const mapping = withDefaults({ include_attributes: ["app.extra", "settles_at", "gen_ai.tool.name"] });
    fc.assert(
      fc.property(attributes, operation, key, key, key, key, (attrs, op, outcome, task, agent, customer) => {
        const span: OtlpSpan = {
          traceId: "0af7651916cd43dd8448eb211c80319c",
          spanId: "b7ad6b7169203331",
          parentSpanId: "",
          name: "x",
          startNs: 1e18,
          endNs: 1e18 + 1e6,
          attributes: new Map(Object.entries({ ...attrs, "gen_ai.operation.name": op })),
          events: [],
          statusCode: 0,
        };
        const verdict = mapSpan(span, new Map(), mapping);
        if (verdict.kind !== "mapped") return;
        const keys: SpanKeys & { outcome: string } = { outcome: outcome || "o" };
        if (task !== undefined) keys.task = task;
        if (agent !== undefined) keys.agent = agent;
        if (customer !== undefined) keys.customer = customer;
        for (const event of verdict.span.events) {
          expect(mappedEnvelope(event, keys, STAMP)).toEqual(validateEvent(eventInput(event, keys), STAMP));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("builds the envelope itself for an ordinary span, in validateEvent's field order", () => {
    const span: OtlpSpan = {
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      parentSpanId: "00f067aa0ba902b7",
      name: "chat",
      startNs: 1e18,
      endNs: 1e18 + 2e8,
      attributes: new Map<string, AttributeValue>([
        ["gen_ai.operation.name", "chat"],
        ["gen_ai.request.model", "gpt-4o"],
        ["gen_ai.usage.input_tokens", 120],
        ["gen_ai.response.finish_reasons", ["stop"]],
      ]),
      events: [],
      statusCode: 0,
    };
    const verdict = mapSpan(span, new Map(), withDefaults({}));
    if (verdict.kind !== "mapped") throw new Error("not mapped");
    const event = verdict.span.events[0]!;
    const keys = { outcome: "conv-1", agent: "bot", customer: "cust" };
    expect(validAsMapped(event, keys)).toBe(true);
    const direct = mappedEnvelope(event, keys, STAMP);
    const validated = validateEvent(eventInput(event, keys), STAMP);
    expect(direct).toEqual(validated);
    expect(Object.keys(direct)).toEqual(Object.keys(validated));
  });
});
