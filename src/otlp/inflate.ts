// Gunzip with a ceiling on the output, enforced while inflating: a gzip bomb is refused after at most the
// ceiling's worth of output, never inflated whole first.
import { createGunzip } from "node:zlib";
import { UndecodableBody } from "./spans.js";

/** The inflated body would pass `limit` bytes. */
export class InflatedTooLarge extends Error {
  override readonly name = "InflatedTooLarge";
  constructor(readonly limit: number) {
    super(`the decompressed body is larger than ${limit} bytes`);
  }
}

/** Inflates a gzip body; rejects with InflatedTooLarge past `limit` output bytes, UndecodableBody for bad gzip. */
export function gunzipBounded(body: Buffer, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip({ chunkSize: 64 * 1024 });
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      gunzip.destroy();
      reject(error);
    };
    gunzip.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) return fail(new InflatedTooLarge(limit));
      chunks.push(chunk);
    });
    gunzip.on("error", (error) => fail(new UndecodableBody(`the gzip body does not inflate: ${error.message}`)));
    gunzip.on("end", () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, total));
    });
    gunzip.end(body);
  });
}
