// GET /v1/insights answered on a worker thread of the ingress: a large read's decoding, sums and collections
// would otherwise come between every other request on the event loop, other accounts' events included
// (docs/performance.md, Costly reads beside another account's events). The thread has its own heap and
// connections and hands back the JSON bytes; the event loop only sends them.
import { Worker } from "node:worker_threads";
import { errorFromData, type ErrorData } from "../api/error-data.js";
import { insightReaderLost, type InsightRead, type InsightReader } from "../api/insight-answer.js";
import type { ArchiveLocation } from "../archive-db/archive-db.js";
import type { RedisEndpoint } from "../redis/client.js";

/** What the thread connects to, copied to it at its start. */
export interface InsightThreadTarget {
  endpoint: RedisEndpoint;
  keyPrefix: string;
  shards: number;
  archive: { location: ArchiveLocation; stallMs: number } | undefined;
  logLevel: string;
}

export type InsightThreadRequest = { id: number; read: InsightRead };
export type InsightThreadReply = { id: number; json: Uint8Array } | { id: number; error: ErrorData };

/** The thread's module beside this one once built; the tests run this file from src (`npm test` builds first). */
function threadModule(): URL {
  const here = import.meta.url;
  return here.endsWith(".ts")
    ? new URL("../../dist/src/app/insight-thread-main.js", here)
    : new URL("./insight-thread-main.js", here);
}

export class InsightThread implements InsightReader {
  private thread: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (json: Buffer) => void; reject: (error: Error) => void }>();
  private closed = false;

  constructor(private readonly target: InsightThreadTarget) {}

  answer(read: InsightRead): Promise<Buffer> {
    if (this.closed) return Promise.reject(insightReaderLost(new Error("the ingress is stopping")));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.started().postMessage({ id, read } satisfies InsightThreadRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const thread = this.thread;
    this.thread = undefined;
    this.failPending(new Error("the ingress is stopping"));
    await thread?.terminate();
  }

  /** Started by the first read (most processes never answer one), and again by the next after one died. */
  private started(): Worker {
    if (this.thread !== undefined) return this.thread;
    const thread = new Worker(threadModule(), { workerData: this.target });
    thread.unref();
    thread.on("message", (reply: InsightThreadReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if ("json" in reply) waiting?.resolve(Buffer.from(reply.json.buffer, reply.json.byteOffset, reply.json.length));
      else waiting?.reject(errorFromData(reply.error));
    });
    thread.on("error", (error) => this.lost(thread, error));
    thread.on("exit", (code) => this.lost(thread, new Error(`the insight thread exited with ${code}`)));
    this.thread = thread;
    return thread;
  }

  private lost(thread: Worker, cause: Error): void {
    if (this.thread !== thread) return;
    this.thread = undefined;
    this.failPending(cause);
  }

  private failPending(cause: Error): void {
    for (const { reject } of this.pending.values()) reject(insightReaderLost(cause));
    this.pending.clear();
  }
}
