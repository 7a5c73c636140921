// The sampler the standard variables name, as the SDK would build it, and a start that fails on a bad one;
// the root rule the ingress applies decides every trace id as the SDK's sampler does.
import { ROOT_CONTEXT, SpanKind } from "@opentelemetry/api";
import { SamplingDecision } from "@opentelemetry/sdk-trace-base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { samplerFromEnv, type RootSampling } from "./sampler-from-env.js";

describe("samplerFromEnv", () => {
  it.each([
    [
      {},
      "ParentBased{root=AlwaysOnSampler, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}",
    ],
    [{ OTEL_TRACES_SAMPLER: "always_off" }, "AlwaysOffSampler"],
    [{ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.01" }, "TraceIdRatioBased{0.01}"],
    [{ OTEL_TRACES_SAMPLER: "traceidratio" }, "TraceIdRatioBased{1}"],
  ])("%o builds %s", (env, description) => {
    expect(samplerFromEnv(env).sampler.toString()).toBe(description);
  });

  it("builds the parent-based ratio sampler with the ratio as its root", () => {
    expect(
      samplerFromEnv({
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
      }).sampler.toString(),
    ).toMatch(/^ParentBased\{root=TraceIdRatioBased\{0.25\},/);
  });

  it("refuses an unknown sampler or a ratio outside 0 to 1", () => {
    expect(() => samplerFromEnv({ OTEL_TRACES_SAMPLER: "sometimes" })).toThrow(/OTEL_TRACES_SAMPLER must be one of/);
    expect(() => samplerFromEnv({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
    expect(() =>
      samplerFromEnv({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "often" }),
    ).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });
});

describe("the root rule", () => {
  /** The rule as the ingress applies it to a trace id's bytes (TraceIds reads the same four words). */
  function sampledByRule(root: RootSampling, id: Uint8Array): boolean {
    if (root.kind === "constant") return root.sampled;
    const view = new DataView(id.buffer, id.byteOffset, id.byteLength);
    const accumulation = (view.getUint32(0) ^ view.getUint32(4) ^ view.getUint32(8) ^ view.getUint32(12)) >>> 0;
    return accumulation < root.upperBound;
  }

  const names = [
    "always_on",
    "always_off",
    "traceidratio",
    "parentbased_always_on",
    "parentbased_always_off",
    "parentbased_traceidratio",
  ];
  const ratio = fc.oneof(fc.constantFrom(0, 1e-9, 0.01, 0.5, 0.999999, 1), fc.double({ min: 0, max: 1, noNaN: true }));
  // Valid trace ids (not all zeros), with words at the edges (0, 0xffffffff) as likely as random ones.
  const word = fc.oneof(
    fc.constantFrom(0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff),
    fc.nat({ max: 0xffffffff }),
  );
  const traceId = fc
    .tuple(word, word, word, word)
    .filter((words) => words.some((w) => w !== 0))
    .map((words) => {
      const bytes = new Uint8Array(16);
      const view = new DataView(bytes.buffer);
      words.forEach((w, i) => view.setUint32(4 * i, w));
      return bytes;
    });

  it("samples a root span exactly when the SDK's sampler does, for every sampler name, ratio and trace id", () => {
    fc.assert(
      fc.property(fc.constantFrom(...names), ratio, traceId, (name, r, id) => {
        const { sampler, root } = samplerFromEnv({ OTEL_TRACES_SAMPLER: name, OTEL_TRACES_SAMPLER_ARG: String(r) });
        const hex = Buffer.from(id).toString("hex");
        const sdk = sampler.shouldSample(ROOT_CONTEXT, hex, "GET /v1/outcomes", SpanKind.SERVER, {}, []).decision;
        expect(sampledByRule(root, id)).toBe(sdk === SamplingDecision.RECORD_AND_SAMPLED);
      }),
      { numRuns: 5000 },
    );
  });
});
