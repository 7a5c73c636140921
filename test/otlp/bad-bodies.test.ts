// POST /v1/traces refuses what it cannot take with OTLP's own answers (a google.rpc.Status in the request's
// encoding) and stores nothing: a truncated protobuf, JSON with a bad id, a gzip bomb, a wrong content type,
// no token; and names rejected spans in partial_success.
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExportTraceServiceResponse, RpcStatus, encodeExport, genAiExport } from "../../bench/otlp-proto.js";
import { metricValue, startTestApp, type TestApp } from "../support/app.js";

describe("POST /v1/traces refusals", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp("standalone");
  });
  afterAll(async () => {
    await t.stop();
  });

  async function post(
    body: Buffer | string,
    headers: Record<string, string>,
    token: string | null = t.token,
  ): Promise<{ status: number; body: Buffer; headers: Headers }> {
    const response = await fetch(`${t.base}/v1/traces`, {
      method: "POST",
      headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers },
      body,
    });
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()), headers: response.headers };
  }

  const protobuf = { "content-type": "application/x-protobuf" };
  const json = { "content-type": "application/json" };

  it("answers each bad body with its status and a google.rpc.Status, and stores nothing", async () => {
    const valid = encodeExport(genAiExport(4));

    const truncated = await post(valid.subarray(0, valid.length - 7), protobuf);
    expect(truncated.status).toBe(400);
    expect(truncated.headers.get("content-type")).toBe("application/x-protobuf");
    expect(RpcStatus.toObject(RpcStatus.decode(truncated.body))).toMatchObject({
      code: 3,
      message: expect.stringMatching(/truncated/) as unknown,
    });

    const badId = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: "zz",
                  spanId: "b7ad6b7169203331",
                  name: "chat",
                  attributes: [{ key: "gen_ai.operation.name", value: { stringValue: "chat" } }],
                },
              ],
            },
          ],
        },
      ],
    };
    const answer = await post(JSON.stringify(badId), json);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body.toString())).toMatchObject({
      code: 3,
      message: expect.stringMatching(/traceId must be hex/) as unknown,
    });

    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const bombed = await post(bomb, { ...protobuf, "content-encoding": "gzip" });
    expect(bombed.status).toBe(413);
    expect(RpcStatus.toObject(RpcStatus.decode(bombed.body)).message).toMatch(
      /decompressed body is larger than 33554432 bytes/,
    );

    const wrongType = await post(valid, { "content-type": "text/plain" });
    expect(wrongType.status).toBe(415);
    expect(JSON.parse(wrongType.body.toString())).toMatchObject({ code: 3 });

    const noToken = await post(valid, protobuf, null);
    expect(noToken.status).toBe(401);
    expect(RpcStatus.toObject(RpcStatus.decode(noToken.body))).toMatchObject({ code: 16 });

    const tooMany = await post(encodeExport(genAiExport(513)), protobuf);
    expect(tooMany.status).toBe(413);

    expect(await metricValue(t.app.metricsPort, "verdict_events_total")).toBe(0);
    expect(((await t.request("GET", "/v1/outcomes")).body as { outcomes: unknown[] }).outcomes).toEqual([]);
  });

  it("takes the good spans of an export and names the rejected ones in partial_success", async () => {
    const good = genAiExport(2, 7) as {
      resourceSpans: { scopeSpans: { spans: { traceId: Buffer; spanId: Buffer }[] }[] }[];
    };
    const spans = good.resourceSpans[0]!.scopeSpans[0]!.spans;
    // A four-byte span id: decodes, but no span of OTLP has one.
    spans[0]!.spanId = Buffer.from("01020304", "hex");
    const answer = await post(gzipSync(encodeExport(good)), { ...protobuf, "content-encoding": "gzip" });
    expect(answer.status).toBe(200);
    const response = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(answer.body), {
      longs: Number,
    }) as { partialSuccess: { rejectedSpans: number; errorMessage: string } };
    expect(response.partialSuccess.rejectedSpans).toBe(1);
    expect(response.partialSuccess.errorMessage).toMatch(/1 span\(s\) rejected: a span's trace id must be 16 bytes/);
    expect(await metricValue(t.app.metricsPort, "verdict_otlp_spans_total")).toBeGreaterThan(0);
  });
});
