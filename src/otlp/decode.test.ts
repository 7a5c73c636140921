// The protobuf reader and the OTLP/JSON decoder read the same export alike; bad bytes refuse the body.
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { encodeExport, genAiExport } from "../../bench/otlp-proto.js";
import { decodeJsonRequest } from "./decode-json.js";
import { decodeProtobufRequest } from "./decode-protobuf.js";
import { InflatedTooLarge, gunzipBounded } from "./inflate.js";
import { UndecodableBody, type ResourceSpans } from "./spans.js";

const span = {
  traceId: Buffer.from("0af7651916cd43dd8448eb211c80319c", "hex"),
  spanId: Buffer.from("b7ad6b7169203331", "hex"),
  parentSpanId: Buffer.from("00f067aa0ba902b7", "hex"),
  name: "execute_tool refund",
  startTimeUnixNano: "1700000000000000000",
  endTimeUnixNano: "1700000000250000000",
  attributes: [
    { key: "gen_ai.tool.name", value: { stringValue: "réfund" } },
    { key: "n", value: { intValue: "9007199254740993" } },
    { key: "ok", value: { boolValue: true } },
    { key: "d", value: { doubleValue: 0.5 } },
    { key: "list", value: { arrayValue: { values: [{ stringValue: "a" }, { intValue: 2 }] } } },
    { key: "kv", value: { kvlistValue: { values: [{ key: "x", value: { stringValue: "y" } }] } } },
  ],
  events: [
    {
      name: "gen_ai.evaluation.result",
      attributes: [{ key: "gen_ai.evaluation.score.value", value: { doubleValue: 0.9 } }],
    },
  ],
  status: { code: 2 },
};

const expected: ResourceSpans[] = [
  {
    resource: new Map([["service.name", "bot"]]),
    spans: [
      {
        traceId: "0af7651916cd43dd8448eb211c80319c",
        spanId: "b7ad6b7169203331",
        parentSpanId: "00f067aa0ba902b7",
        name: "execute_tool refund",
        startNs: 1700000000000000000,
        endNs: 1700000000250000000,
        attributes: new Map<string, unknown>([
          ["gen_ai.tool.name", "réfund"],
          ["n", "9007199254740993"],
          ["ok", true],
          ["d", 0.5],
          ["list", ["a", 2]],
          ["kv", { x: "y" }],
        ]) as ResourceSpans["spans"][number]["attributes"],
        events: [{ name: "gen_ai.evaluation.result", attributes: new Map([["gen_ai.evaluation.score.value", 0.9]]) }],
        statusCode: 2,
      },
    ],
  },
];

const request = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "bot" } }] },
      scopeSpans: [{ spans: [span] }],
    },
  ],
};

function asJson(): unknown {
  const hex = (b: Buffer): string => b.toString("hex");
  return {
    resourceSpans: [
      {
        resource: request.resourceSpans[0]!.resource,
        scopeSpans: [
          {
            scope: { name: "ignored" },
            spans: [
              {
                ...span,
                traceId: hex(span.traceId).toUpperCase(),
                spanId: hex(span.spanId),
                parentSpanId: hex(span.parentSpanId),
                unknownField: 1,
              },
            ],
          },
        ],
      },
    ],
  };
}

describe("OTLP decoders", () => {
  it("read protobuf and OTLP/JSON to the same spans", () => {
    expect(decodeProtobufRequest(encodeExport(request))).toEqual(expected);
    expect(decodeJsonRequest(asJson())).toEqual(expected);
  });

  it("read an SDK-sized export whole", () => {
    const decoded = decodeProtobufRequest(encodeExport(genAiExport(128)));
    expect(decoded[0]!.spans).toHaveLength(512);
    expect(decoded[0]!.spans[3]!.attributes.get("gen_ai.conversation.id")).toBe("conv-1-0");
  });

  it("read repeated and near-equal texts and ids each as sent", () => {
    // Texts and ids equal to, or one byte off, those read before: the reader gives back strings it read.
    const texts = Array.from({ length: 300 }, (_, i) => ["ab", "ba", "abc", "acb", "é", `v${i % 150}`][i % 6]!);
    const traces = ["0af7651916cd43dd8448eb211c80319c", "0af7651916cd43dd8448eb211c80319d"];
    const spans = texts.map((text, i) => ({
      traceId: Buffer.from(traces[Math.floor(i / 3) % 2]!, "hex"),
      spanId: Buffer.from(i.toString(16).padStart(16, "1"), "hex"),
      parentSpanId: Buffer.from(traces[i % 2]!.slice(i % 3, 16 + (i % 3)), "hex"),
      name: text,
      attributes: [{ key: "t", value: { stringValue: text } }],
    }));
    const [decoded] = decodeProtobufRequest(encodeExport({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));
    decoded!.spans.forEach((span, i) => {
      expect(span.name).toBe(texts[i]);
      expect(span.attributes.get("t")).toBe(texts[i]);
      expect(span.traceId).toBe(traces[Math.floor(i / 3) % 2]);
      expect(span.parentSpanId).toBe(traces[i % 2]!.slice(i % 3, 16 + (i % 3)));
    });
  });

  it("refuse truncated protobuf and wrong wire types", () => {
    const bytes = encodeExport(request);
    for (const cut of [1, 10, bytes.length - 1])
      expect(() => decodeProtobufRequest(bytes.subarray(0, cut))).toThrow(UndecodableBody);
    // resource_spans (field 1) sent as a varint.
    expect(() => decodeProtobufRequest(Buffer.from([0x08, 0x01]))).toThrow(/wire type/);
  });

  it("refuse JSON whose ids are not hex or whose fields have the wrong types", () => {
    const bad = asJson() as { resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] };
    bad.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId = "not-hex";
    expect(() => decodeJsonRequest(bad)).toThrow(/traceId must be hex/);
    expect(() => decodeJsonRequest({ resourceSpans: "x" })).toThrow(UndecodableBody);
    expect(() => decodeJsonRequest([])).toThrow(UndecodableBody);
  });
});

describe("gunzipBounded", () => {
  it("inflates within the limit and stops a bomb at it", async () => {
    expect((await gunzipBounded(gzipSync(Buffer.from("hello")), 10)).toString()).toBe("hello");
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    await expect(gunzipBounded(bomb, 1024 * 1024)).rejects.toBeInstanceOf(InflatedTooLarge);
    await expect(gunzipBounded(Buffer.from("not gzip"), 10)).rejects.toBeInstanceOf(UndecodableBody);
  });
});
