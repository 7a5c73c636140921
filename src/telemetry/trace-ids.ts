// Trace and span ids for the SDK, where a root span's trace id can be drawn before the span is made: the
// ingress asks the sampler about a request with the trace id its span would get (see startRequestSpan).
import { RandomIdGenerator, type IdGenerator } from "@opentelemetry/sdk-trace-base";

export class TraceIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private drawnAhead: string | undefined;

  /** The id drawn ahead by nextTraceId, if any; the SDK calls this for root spans only. */
  generateTraceId(): string {
    const id = this.drawnAhead ?? this.random.generateTraceId();
    this.drawnAhead = undefined;
    return id;
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }

  /** The trace id the next root span will get. */
  nextTraceId(): string {
    return (this.drawnAhead ??= this.random.generateTraceId());
  }

  /** Drops the id drawn ahead (its request was not sampled), so that no later span shares it. */
  forgetNextTraceId(): void {
    this.drawnAhead = undefined;
  }
}
