// The sampler the standard variables name, as the SDK would build it, and a start that fails on a bad one.
import { describe, expect, it } from "vitest";
import { samplerFromEnv } from "./sampler-from-env.js";

describe("samplerFromEnv", () => {
  it.each([
    [{}, "ParentBased{root=AlwaysOnSampler, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}"],
    [{ OTEL_TRACES_SAMPLER: "always_off" }, "AlwaysOffSampler"],
    [{ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.01" }, "TraceIdRatioBased{0.01}"],
    [{ OTEL_TRACES_SAMPLER: "traceidratio" }, "TraceIdRatioBased{1}"],
  ])("%o builds %s", (env, description) => {
    expect(samplerFromEnv(env).toString()).toBe(description);
  });

  it("builds the parent-based ratio sampler with the ratio as its root", () => {
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" }).toString()).toMatch(/^ParentBased\{root=TraceIdRatioBased\{0.25\},/);
  });

  it("refuses an unknown sampler or a ratio outside 0 to 1", () => {
    expect(() => samplerFromEnv({ OTEL_TRACES_SAMPLER: "sometimes" })).toThrow(/OTEL_TRACES_SAMPLER must be one of/);
    expect(() => samplerFromEnv({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => samplerFromEnv({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "often" })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });
});
