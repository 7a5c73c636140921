// The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, built here rather than inside the SDK so
// that the ingress can decide a request before making a span (see startRequestSpan in tracing.ts).
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from "@opentelemetry/sdk-trace-base";

/**
 * How the sampler decides a root span (a request without a caller's trace): always the same way, or by the
 * specification's TraceIdRatioBased rule, sampled when the XOR of the trace id's four 32-bit words is below
 * `upperBound` (see TraceIds.nextTraceIdAccumulation). The ingress applies this to every request, so an
 * unsampled one costs a comparison; the SDK then makes the same decision again for the sampled ones (a
 * test holds the two to agreeing).
 */
export type RootSampling = { kind: "constant"; sampled: boolean } | { kind: "ratio"; upperBound: number };

export interface EnvSampler {
  /** The sampler the SDK is given. */
  sampler: Sampler;
  /** Its decision for a root span, in a form cheaper to apply. */
  root: RootSampling;
}

const ALWAYS: RootSampling = { kind: "constant", sampled: true };
const NEVER: RootSampling = { kind: "constant", sampled: false };

/** The samplers of the OpenTelemetry specification's OTEL_TRACES_SAMPLER, as the Node SDK builds them. */
const SAMPLERS: Record<string, (ratio: () => number) => EnvSampler> = {
  always_on: () => ({ sampler: new AlwaysOnSampler(), root: ALWAYS }),
  always_off: () => ({ sampler: new AlwaysOffSampler(), root: NEVER }),
  traceidratio: (ratio) => {
    const r = ratio();
    return { sampler: new TraceIdRatioBasedSampler(r), root: ratioRoot(r) };
  },
  parentbased_always_on: () => ({ sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), root: ALWAYS }),
  parentbased_always_off: () => ({ sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }), root: NEVER }),
  parentbased_traceidratio: (ratio) => {
    const r = ratio();
    return { sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(r) }), root: ratioRoot(r) };
  },
};

/** The specification's default when OTEL_TRACES_SAMPLER is unset. */
const DEFAULT_SAMPLER = "parentbased_always_on";

/**
 * The sampler the environment names. A name or ratio the SDK would only log and replace with its default
 * fails the start instead, as every other setting does.
 */
export function samplerFromEnv(env: Readonly<Record<string, string | undefined>>): EnvSampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim() || DEFAULT_SAMPLER;
  const make = SAMPLERS[name];
  if (make === undefined)
    throw new Error(`OTEL_TRACES_SAMPLER must be one of ${Object.keys(SAMPLERS).join(", ")} (got ${name})`);
  return make(() => {
    const text = env.OTEL_TRACES_SAMPLER_ARG?.trim() ?? "";
    // The SDK's default ratio when the argument is blank.
    if (text === "") return 1;
    const ratio = Number(text);
    if (!(ratio >= 0 && ratio <= 1))
      throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 (got ${text})`);
    return ratio;
  });
}

/** TraceIdRatioBasedSampler's bound for `ratio`, computed as the SDK computes it. */
function ratioRoot(ratio: number): RootSampling {
  return { kind: "ratio", upperBound: ratio === 1 ? 0x100000000 : Math.floor(ratio * 0xffffffff) };
}
