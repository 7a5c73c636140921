// The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, built here rather than inside the SDK so
// that the ingress can put a request to it before making a span (see startRequestSpan in tracing.ts).
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from "@opentelemetry/sdk-trace-base";

/** The samplers of the OpenTelemetry specification's OTEL_TRACES_SAMPLER, as the Node SDK builds them. */
const SAMPLERS: Record<string, (ratio: () => number) => Sampler> = {
  always_on: () => new AlwaysOnSampler(),
  always_off: () => new AlwaysOffSampler(),
  traceidratio: (ratio) => new TraceIdRatioBasedSampler(ratio()),
  parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
  parentbased_traceidratio: (ratio) => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) }),
};

/** The specification's default when OTEL_TRACES_SAMPLER is unset. */
const DEFAULT_SAMPLER = "parentbased_always_on";

/**
 * The sampler the environment names. A name or ratio the SDK would only log and replace with its default
 * fails the start instead, as every other setting does.
 */
export function samplerFromEnv(env: Readonly<Record<string, string | undefined>>): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim() || DEFAULT_SAMPLER;
  const make = SAMPLERS[name];
  if (make === undefined) throw new Error(`OTEL_TRACES_SAMPLER must be one of ${Object.keys(SAMPLERS).join(", ")} (got ${name})`);
  return make(() => {
    const text = env.OTEL_TRACES_SAMPLER_ARG?.trim() ?? "";
    // The SDK's default ratio when the argument is blank.
    if (text === "") return 1;
    const ratio = Number(text);
    if (!(ratio >= 0 && ratio <= 1)) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 (got ${text})`);
    return ratio;
  });
}
