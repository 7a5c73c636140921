// Reading a request body under a cap, and parsing it as JSON: the edge's two body steps.
import { ApiError } from "../errors/api-error.js";
import type { HttpResponse } from "./uws.js";

export class BodyTooLarge extends ApiError {
  constructor(limit: number) {
    super("PAYLOAD_TOO_LARGE", `request body is larger than ${limit} bytes`);
  }
}

/** The part of an exchange a body read needs: its response, and where to leave the read's abort. */
export interface BodyReadTarget {
  res: HttpResponse;
  abortRead?: () => void;
}

/**
 * Collects the body, copying each chunk (uWS reuses them) and refusing past `limit` bytes. With the length
 * the request declared (framing checked it, and the route's cap), the chunks are copied into one buffer of
 * that size: no copy per chunk and none to join them, which for a large body was two copies of it.
 */
export function readBody(ex: BodyReadTarget, limit: number, declared?: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const bytes = new BodyBytes(declared !== undefined && declared <= limit ? declared : undefined);
    let done = false;
    ex.abortRead = () => {
      if (done) return;
      done = true;
      reject(new Error("client went away while sending the body"));
    };
    ex.res.onData((chunk, isLast) => {
      if (done) return;
      if (bytes.total + chunk.byteLength > limit) {
        done = true;
        reject(new BodyTooLarge(limit));
        return;
      }
      bytes.add(chunk);
      if (isLast) {
        done = true;
        resolve(bytes.whole());
      }
    });
  });
}

/** A body's bytes as they arrive: into one buffer of the declared size, or (none declared, or more came) chunk copies. */
class BodyBytes {
  total = 0;
  private sized: Buffer | undefined;
  private readonly chunks: Buffer[] = [];

  constructor(declared: number | undefined) {
    if (declared !== undefined && Number.isSafeInteger(declared) && declared > 0) this.sized = takeBuffer(declared);
  }

  add(chunk: ArrayBuffer): void {
    const n = chunk.byteLength;
    if (n === 0) return;
    if (this.sized !== undefined && this.total + n <= this.sized.length) {
      this.sized.set(new Uint8Array(chunk), this.total);
    } else {
      if (this.sized !== undefined && this.total > 0) this.chunks.push(this.sized.subarray(0, this.total));
      this.sized = undefined;
      this.chunks.push(Buffer.from(new Uint8Array(chunk)));
    }
    this.total += n;
  }

  whole(): Buffer {
    if (this.sized !== undefined) return this.sized.subarray(0, this.total);
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.total);
  }
}

/** Smallest and largest size class of the reused body buffers (powers of two), and how many each keeps. */
const REUSED_MIN = 64 * 1024;
const REUSED_MAX = 1024 * 1024;
const REUSED_PER_CLASS = 4;
const freeBuffers = new Map<number, ArrayBuffer[]>();
const reusable = new WeakSet<ArrayBuffer>();

/**
 * A buffer of `n` bytes for a body. Large ones are reused once their JSON is parsed (parseBody): with npm
 * start's 64 MB young generation, scavenges that would free a large new ArrayBuffer early are rare, and the
 * ingress's mark-compacts followed the count of large buffers it made (docs/performance.md, Two tenants).
 * Small ones come from Node's buffer pool: a fresh ArrayBuffer per request (chunk.slice) costs the GC far more.
 */
function takeBuffer(n: number): Buffer {
  if (n < REUSED_MIN || n > REUSED_MAX) return Buffer.allocUnsafe(n);
  const size = 2 ** Math.ceil(Math.log2(n));
  let buffer = freeBuffers.get(size)?.pop();
  if (buffer === undefined) {
    buffer = new ArrayBuffer(size);
    reusable.add(buffer);
  }
  return Buffer.from(buffer, 0, n);
}

/** Gives a body's buffer back for the next body once nothing reads it any more (its JSON parsed). */
function releaseBody(bytes: Buffer): void {
  const buffer = bytes.buffer;
  if (!(buffer instanceof ArrayBuffer) || !reusable.has(buffer)) return;
  let free = freeBuffers.get(buffer.byteLength);
  if (free === undefined) freeBuffers.set(buffer.byteLength, (free = []));
  if (free.length < REUSED_PER_CLASS && !free.includes(buffer)) free.push(buffer);
}

/** The body's JSON (parseJson), its buffer then given back for reuse: the text parsed is a copy of it. */
export function parseBody(bytes: Buffer | undefined): unknown {
  try {
    return parseJson(bytes);
  } finally {
    if (bytes !== undefined) releaseBody(bytes);
  }
}

export function parseJson(bytes: Buffer | undefined): unknown {
  if (bytes === undefined || bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch (error) {
    throw new ApiError(
      "VALIDATION_ERROR",
      "request body is not valid JSON",
      [{ path: "$", message: (error as Error).message }],
      { cause: error },
    );
  }
}
