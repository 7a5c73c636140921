// The protobuf reader keeps only the attributes the mapping reads: every name the mapping's code looks up is
// kept, and so is every name an account's mapping override adds (message contents included, when named).
import { describe, expect, it } from "vitest";
import { encodeExport } from "../../bench/otlp-proto.js";
import { AttributeFilter, MAPPING_READS, filterFor } from "./attribute-filter.js";
import { decodeProtobufRequest } from "./decode-protobuf.js";
import { mapSpan } from "./map-span.js";
import { DEFAULT_OTLP_MAPPING, withDefaults, type OtlpMapping } from "./mapping-config.js";
import type { AttributeValue, Attributes, OtlpSpan } from "./spans.js";

/** Attributes that note every name looked up. */
class Recording extends Map<string, AttributeValue> {
  constructor(
    entries: Record<string, AttributeValue>,
    private readonly seen: Set<string>,
  ) {
    super(Object.entries(entries));
  }

  override get(name: string): AttributeValue | undefined {
    this.seen.add(name);
    return super.get(name);
  }
}

function namesRead(mapping: OtlpMapping): Set<string> {
  const seen = new Set<string>();
  const spanOf = (name: string, attributes: Record<string, AttributeValue>, statusCode = 0): OtlpSpan => ({
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: "b7ad6b7169203331",
    parentSpanId: "",
    name,
    startNs: 1e18,
    endNs: 1e18 + 1e6,
    attributes: new Recording(attributes, seen),
    events: [{ name: "gen_ai.evaluation.result", attributes: new Recording({}, seen) }],
    statusCode,
  });
  // One span of each path through the mapping, with nothing else set: every fallback name is looked up.
  const spans = [
    spanOf("x", { "gen_ai.operation.name": "execute_tool" }),
    spanOf("x", { "gen_ai.operation.name": "invoke_agent" }),
    spanOf("x", { "gen_ai.operation.name": "chat" }, 2),
    spanOf("x", { "openinference.span.kind": "TOOL" }),
    spanOf("x", { "openinference.span.kind": "LLM" }),
    spanOf("triage", { "openinference.span.kind": "AGENT" }),
    spanOf("ai.toolCall", {}),
    spanOf("ai.generateText.doGenerate", {}),
    spanOf("ai.generateText", {}),
    spanOf("ai.embed", {}),
    spanOf("GET /", {}),
  ];
  for (const span of spans) mapSpan(span, new Recording({}, seen), mapping);
  return seen;
}

function exportOf(attributes: Record<string, string>, resource: Record<string, string> = {}): Buffer {
  const kv = (entries: Record<string, string>) =>
    Object.entries(entries).map(([key, value]) => ({ key, value: { stringValue: value } }));
  return encodeExport({
    resourceSpans: [
      {
        resource: { attributes: kv(resource) },
        scopeSpans: [
          {
            spans: [
              {
                traceId: Buffer.from("0af7651916cd43dd8448eb211c80319c", "hex"),
                spanId: Buffer.from("b7ad6b7169203331", "hex"),
                name: "chat",
                startTimeUnixNano: "1700000000000000000",
                endTimeUnixNano: "1700000000250000000",
                attributes: kv(attributes),
              },
            ],
          },
        ],
      },
    ],
  });
}

function attributesOf(body: Buffer, mapping: OtlpMapping): { span: Attributes; resource: Attributes } {
  const [first] = decodeProtobufRequest(body, filterFor(mapping));
  return { span: first!.spans[0]!.attributes, resource: first!.resource };
}

describe("AttributeFilter", () => {
  it("keeps every name the mapping looks up, for the default mapping and an override", () => {
    const override = withDefaults({
      outcome_key_attributes: ["app.thread"],
      customer_key_attributes: ["app.customer"],
      include_attributes: ["gen_ai.input.messages"],
    });
    for (const mapping of [{ ...DEFAULT_OTLP_MAPPING }, override]) {
      const filter = filterFor(mapping);
      const missed = [...namesRead(mapping)].filter((name) => {
        const bytes = Buffer.from(name);
        return filter.match(bytes, 0, bytes.length) !== name;
      });
      expect(missed).toEqual([]);
    }
  });

  it("matches names by their bytes, multi-byte ones included, and nothing else", () => {
    const filter = new AttributeFilter(["gen_ai.usage.input_tokens", "réf", "ab"]);
    const bytes = Buffer.from("xxgen_ai.usage.input_tokensréfabac");
    expect(filter.match(bytes, 2, 27)).toBe("gen_ai.usage.input_tokens");
    expect(filter.match(bytes, 27, 31)).toBe("réf");
    expect(filter.match(bytes, 31, 33)).toBe("ab");
    expect(filter.match(bytes, 32, 34)).toBeUndefined();
    expect(filter.match(bytes, 0, 0)).toBeUndefined();
    expect(
      MAPPING_READS.every(
        (name) => filterFor({ ...DEFAULT_OTLP_MAPPING }).match(Buffer.from(name), 0, Buffer.byteLength(name)) === name,
      ),
    ).toBe(true);
  });

  it("skips what the mapping does not read, and keeps what an override names, on spans and resources", () => {
    const body = exportOf(
      {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]',
        "app.thread": "thread-7",
      },
      { "service.name": "bot", "app.customer": "cust-9" },
    );
    const defaults = attributesOf(body, { ...DEFAULT_OTLP_MAPPING });
    expect([...defaults.span.keys()]).toEqual(["gen_ai.operation.name"]);
    expect([...defaults.resource.keys()]).toEqual([]);

    const override = withDefaults({
      outcome_key_attributes: ["app.thread"],
      customer_key_attributes: ["app.customer"],
      include_attributes: ["gen_ai.input.messages"],
    });
    const kept = attributesOf(body, override);
    expect(kept.span.get("gen_ai.input.messages")).toContain('"content":"hi"');
    expect(kept.resource.get("app.customer")).toBe("cust-9");
    const [first] = decodeProtobufRequest(body, filterFor(override));
    const verdict = mapSpan(first!.spans[0]!, first!.resource, override);
    expect(verdict).toMatchObject({
      kind: "mapped",
      span: {
        keys: { outcome: "thread-7", customer: "cust-9" },
        events: [{ action: "chat", properties: { gen_ai_input_messages: kept.span.get("gen_ai.input.messages") } }],
      },
    });
  });
});
