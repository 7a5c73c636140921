// A span exporter that hands each batch to a worker thread, which encodes it and sends it over OTLP/HTTP.
//
// Why: in the ingress at 1% sampling, exporting on the main thread cost about 4% of its CPU per request
// (against this exporter, pairs loaded together, 2026-11-26: 0.908-0.982): the OTLP encoding of every
// batch, and an HTTP client in the process whose traffic makes Node's stream internals, which also carry
// the Redis connection, polymorphic.
// Here the main thread only copies the ended spans into plain records and posts them; the thread has its
// own heap and JIT. Batching stays the SDK's (BatchSpanProcessor and its OTEL_BSP_* variables).
import { Worker } from "node:worker_threads";
import { diag } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { resourceRecord, spanRecord, type ResourceRecord, type SpanRecord } from "./span-records.js";

/** Main thread to export thread. */
export type ExportRequest =
  { kind: "export"; id: number; resource: ResourceRecord; spans: SpanRecord[] } | { kind: "shutdown" };

/** Export thread to main thread. */
export type ExportReply =
  { kind: "exported"; id: number; code: ExportResultCode; error?: string } | { kind: "shutdown" };

/**
 * The thread's module: beside this one once built. The tests run this file from src, where only the built
 * copy is JavaScript (`npm test` builds before it runs vitest).
 */
function threadModule(): URL {
  const here = import.meta.url;
  return here.endsWith(".ts")
    ? new URL("../../dist/src/telemetry/span-export-thread.js", here)
    : new URL("./span-export-thread.js", here);
}

export class OffThreadExporter implements SpanExporter {
  private thread: Worker | undefined;
  private nextId = 0;
  /** Batches posted and not yet answered, by id. */
  private readonly pending = new Map<number, (result: ExportResult) => void>();
  private idleWaiters: (() => void)[] = [];
  private onShutdownReply: (() => void) | undefined;
  private stopped = false;

  constructor() {
    // Started now, not with the first batch: loading the exporter's modules takes the thread about 0.4 s of
    // CPU, better spent while the process starts than in the middle of its traffic.
    this.started();
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    const first = spans[0];
    if (this.stopped || first === undefined) {
      resultCallback(
        this.stopped
          ? { code: ExportResultCode.FAILED, error: new Error("exporter is shut down") }
          : { code: ExportResultCode.SUCCESS },
      );
      return;
    }
    const id = this.nextId++;
    this.pending.set(id, resultCallback);
    try {
      const request: ExportRequest = {
        kind: "export",
        id,
        resource: resourceRecord(first.resource),
        spans: spans.map(spanRecord),
      };
      this.started().postMessage(request);
    } catch (error) {
      // A value structured clone cannot copy (DataCloneError): the batch fails now rather than leave the
      // processor waiting for an answer that never comes.
      this.settle(id, {
        code: ExportResultCode.FAILED,
        error: error instanceof Error ? error : new Error(String(error)),
      });
    }
  }

  /** Resolves once every batch posted so far is answered. */
  forceFlush(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    await this.forceFlush();
    this.stopped = true;
    const thread = this.thread;
    if (thread === undefined) return;
    // The thread's exporter finishes what it is sending before it answers.
    await new Promise<void>((resolve) => {
      this.onShutdownReply = resolve;
      thread.postMessage({ kind: "shutdown" } satisfies ExportRequest);
    });
    this.thread = undefined;
    await thread.terminate();
  }

  /** The export thread, started with the exporter and again by the next batch after one died. */
  private started(): Worker {
    if (this.thread !== undefined) return this.thread;
    const thread = new Worker(threadModule());
    // Exports must never keep a process alive that has nothing else to do; shutdown() flushes them.
    thread.unref();
    thread.on("message", (reply: ExportReply) => {
      if (reply.kind === "shutdown") {
        this.onShutdownReply?.();
        return;
      }
      this.settle(reply.id, { code: reply.code, ...(reply.error !== undefined && { error: new Error(reply.error) }) });
    });
    thread.on("error", (error) => diag.error("span export thread failed", error));
    thread.on("exit", (code) => {
      if (this.thread !== thread) return;
      this.thread = undefined;
      // Its batches are lost (as an OTLP exporter's are when a collector is down); the next batch starts
      // a new thread.
      if (code !== 0) diag.error(`span export thread exited with ${code}`);
      for (const id of [...this.pending.keys()])
        this.settle(id, { code: ExportResultCode.FAILED, error: new Error(`span export thread exited with ${code}`) });
    });
    this.thread = thread;
    return thread;
  }

  private settle(id: number, result: ExportResult): void {
    const callback = this.pending.get(id);
    this.pending.delete(id);
    callback?.(result);
    if (this.pending.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
