// Trace and span ids for the SDK, where a root span's trace id can be drawn before the span is made: the
// ingress decides whether to sample a request from the trace id its span would get (see startRequestSpan),
// and keeps that id as four numbers, so an unsampled request never has its id written out in hex.
import type { IdGenerator } from "@opentelemetry/sdk-trace-base";

export class TraceIds implements IdGenerator {
  /** Whether a trace id is drawn ahead; it is then words w0..w3 (big-endian 32-bit, as the hex reads). */
  private drawnAhead = false;
  private w0 = 0;
  private w1 = 0;
  private w2 = 0;
  private w3 = 0;

  /** The id drawn ahead, if any, else a fresh one; the SDK calls this for root spans only. */
  generateTraceId(): string {
    const id = this.nextTraceId();
    this.drawnAhead = false;
    return id;
  }

  /** Never all zeros (W3C calls that id invalid). */
  generateSpanId(): string {
    let high: number;
    let low: number;
    do {
      high = randomWord();
      low = randomWord();
    } while ((high | low) === 0);
    return hexWord(high) + hexWord(low);
  }

  /** The trace id the next root span will get, drawn ahead if it is not yet. */
  nextTraceId(): string {
    if (!this.drawnAhead) this.drawAhead();
    return hexWord(this.w0) + hexWord(this.w1) + hexWord(this.w2) + hexWord(this.w3);
  }

  /**
   * The XOR of the four 32-bit words of the trace id the next root span will get (drawn ahead if it is not
   * yet), unsigned: the number the specification's TraceIdRatioBased sampler compares with its bound, here
   * without writing the id in hex for the sampler to parse back.
   */
  nextTraceIdAccumulation(): number {
    if (!this.drawnAhead) this.drawAhead();
    return (this.w0 ^ this.w1 ^ this.w2 ^ this.w3) >>> 0;
  }

  /** Drops the id drawn ahead (its request was not sampled), so that no later span shares it. */
  forgetNextTraceId(): void {
    this.drawnAhead = false;
  }

  /** Draws the next trace id's words, never all zeros. */
  private drawAhead(): void {
    do {
      this.w0 = randomWord();
      this.w1 = randomWord();
      this.w2 = randomWord();
      this.w3 = randomWord();
    } while ((this.w0 | this.w1 | this.w2 | this.w3) === 0);
    this.drawnAhead = true;
  }
}

/**
 * A random unsigned 32-bit word from Math.random, as the SDK's own id generator draws them: trace ids
 * must be unique, not secret, and the ingress draws one per request (randomFillSync on a pool of 4 KiB
 * cost 0.3% of its CPU at 1% sampling, more than everything else an unsampled request does for tracing).
 */
function randomWord(): number {
  return (Math.random() * 0x100000000) >>> 0;
}

/** Every byte as 2 lowercase hex digits. */
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/**
 * An unsigned 32-bit word as 8 lowercase hex digits, a byte at a time: `toString(16)` of a word above 2^30
 * (not a small integer to V8) took a slow path, about 0.4 µs each, and a sampled request writes 8 of them
 * (its trace id, its span's and its enqueue span's ids): a third of what the SDK spent on its spans.
 */
export function hexWord(word: number): string {
  return (
    HEX_BYTES[word >>> 24]! +
    HEX_BYTES[(word >>> 16) & 0xff]! +
    HEX_BYTES[(word >>> 8) & 0xff]! +
    HEX_BYTES[word & 0xff]!
  );
}
