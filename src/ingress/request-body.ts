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

/** Collects the body, copying each chunk (uWS reuses them) and refusing past `limit` bytes. */
export function readBody(ex: BodyReadTarget, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    ex.abortRead = () => {
      if (done) return;
      done = true;
      reject(new Error("client went away while sending the body"));
    };
    ex.res.onData((chunk, isLast) => {
      if (done) return;
      total += chunk.byteLength;
      if (total > limit) {
        done = true;
        reject(new BodyTooLarge(limit));
        return;
      }
      // Copied from Node's buffer pool: a fresh ArrayBuffer per request (chunk.slice) costs the GC far more.
      if (chunk.byteLength > 0) chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) {
        done = true;
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
      }
    });
  });
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
