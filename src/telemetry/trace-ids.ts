// Trace and span ids for the SDK, where a root span's trace id can be drawn before the span is made: the
// ingress asks the sampler about a request with the trace id its span would get (see startRequestSpan).
import { randomFillSync } from "node:crypto";
import type { IdGenerator } from "@opentelemetry/sdk-trace-base";

/**
 * Random bytes drawn at once for many ids: the ingress draws a trace id for every request, and one
 * randomFillSync per 256 of them costs less than the SDK's four Math.random calls and a buffer write per id.
 */
const POOL_BYTES = 4096;
const INVALID_TRACE_ID = "0".repeat(32);
const INVALID_SPAN_ID = "0".repeat(16);

export class TraceIds implements IdGenerator {
  private readonly pool = Buffer.alloc(POOL_BYTES);
  private used = POOL_BYTES;
  private drawnAhead: string | undefined;

  /** The id drawn ahead by nextTraceId, if any; the SDK calls this for root spans only. */
  generateTraceId(): string {
    const id = this.drawnAhead ?? this.draw(16, INVALID_TRACE_ID);
    this.drawnAhead = undefined;
    return id;
  }

  generateSpanId(): string {
    return this.draw(8, INVALID_SPAN_ID);
  }

  /** The trace id the next root span will get. */
  nextTraceId(): string {
    return (this.drawnAhead ??= this.draw(16, INVALID_TRACE_ID));
  }

  /** Drops the id drawn ahead (its request was not sampled), so that no later span shares it. */
  forgetNextTraceId(): void {
    this.drawnAhead = undefined;
  }

  /** `bytes` random bytes in hex, never all zeros (W3C calls that id invalid). */
  private draw(bytes: number, invalid: string): string {
    let id: string;
    do {
      if (this.used + bytes > POOL_BYTES) {
        randomFillSync(this.pool);
        this.used = 0;
      }
      id = this.pool.toString("hex", this.used, this.used + bytes);
      this.used += bytes;
    } while (id === invalid);
    return id;
  }
}
