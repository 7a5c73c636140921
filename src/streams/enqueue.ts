// Appends validated events to their shard streams with group commit: every submission that arrives in the
// same event-loop turn for a shard shares one script call, which appends them as one stream entry, and
// each submission learns the fate of its own events.
import { SpanKind, SpanStatusCode, type Span } from "@opentelemetry/api";
import { corkMasters, type RedisClient } from "../redis/client.js";
import { replicated } from "../redis/replica-acks.js";
import { Scripts } from "../redis/scripts.js";
import { ENTRY_FIELD, frameRun } from "./stream-entry.js";
import type { Keys } from "../redis/keys.js";
import { startCallerSpan, tracingEnabled } from "../telemetry/tracing.js";

/** What became of one event. `rejected` was never appended; `unconfirmed` may or may not have been. */
export type EnqueueResult = "appended" | "duplicate" | "rejected" | "unconfirmed";

export interface EnqueueItem {
  accountId: string;
  outcomeKey: string;
  /** Claimed in the outcome's idempotency hash: a client's idempotency_key, or a replay's claim (replay-claim.ts). */
  idempotencyKey?: string | Buffer;
  /** The packed EventEnvelope. */
  payload: Buffer;
  /** `payload` as a stream item (packEnvelopeFramed), when packed so: an event alone in its run is not copied again. */
  framed?: Buffer;
}

export interface EnqueuerOptions {
  /** A stream already holding this many entries (each the events of one call) refuses the call. */
  maxShardBacklog: number;
  /** Events per script call; a larger submission still goes whole, alone. @default 1000 */
  maxEventsPerCall?: number;
  /** Payload bytes per script call; a larger submission still goes whole, alone. @default 4 MiB */
  maxBytesPerCall?: number;
  /** Replicas that must hold a call's events before they count as appended (WAIT). @default 0 */
  replicaAcks?: number;
  /** The enqueue's deadline, which the WAIT for replicas shares. @default 2000 */
  enqueueTimeoutMs?: number;
}

/** Told once per script call, for metrics. */
export type CallObserver = (
  outcome: "ok" | "backlog" | "rejected" | "unconfirmed" | "replicas",
  events: number,
  seconds: number,
) => void;

interface Submission {
  items: readonly EnqueueItem[];
  bytes: number;
  resolve(results: EnqueueResult[]): void;
  /**
   * The submitting request's traceparent while tracing is on and it is sampled: the call's span links to
   * it. Always present, undefined for the others: one shape for every submission.
   */
  caller: string | undefined;
}

/** Redis replies that mean the script never ran, so nothing of the call was written. */
const REFUSED_BEFORE_RUNNING =
  /^(OOM|BUSY|LOADING|MASTERDOWN|READONLY|CLUSTERDOWN|TRYAGAIN|NOSCRIPT|MISCONF|NOPERM|NOAUTH|MOVED|ASK)\b/;
/** ioredis errors for a command it refused to send (offline queue disabled and not connected). */
const NOT_SENT = /enableOfflineQueue options is false/;

/** enqueue.lua's reply when the backlog bound refused the call (nothing appended). */
const BACKLOG_FULL = -1;

interface EnqueueScriptReplies {
  /** BACKLOG_FULL, or one character per event: "1" appended, "0" duplicate. */
  enqueue: string | number;
}

export class ShardEnqueuer {
  private readonly scripts: Scripts<EnqueueScriptReplies>;
  private readonly pending = new Map<number, Submission[]>();
  private flushScheduled = false;
  private readonly maxEvents: number;
  private readonly maxBytes: number;

  /**
   * `redis` should be a connection of its own with the offline queue disabled, so a Redis that is down
   * fails a call at once (rejected: never sent) instead of queueing it, and with the enqueue timeout as its
   * command timeout: a call not answered by then fails (unconfirmed) through ioredis's own per-command
   * timer, with no second timer and promise race per call here.
   */
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly options: EnqueuerOptions,
    private readonly observe: CallObserver = () => {},
  ) {
    this.scripts = new Scripts(redis, new URL("./lua/", import.meta.url), ["enqueue"]);
    this.maxEvents = options.maxEventsPerCall ?? 1000;
    this.maxBytes = options.maxBytesPerCall ?? 4 * 1024 * 1024;
  }

  /**
   * Enqueues `items` (all of one shard) in order, in one script call shared with other submissions of the
   * same turn; the items of one submission are never split across calls, so they share one fate.
   */
  submit(shard: number, items: readonly EnqueueItem[], caller?: string): Promise<EnqueueResult[]> {
    return new Promise((resolve) => {
      let bytes = 0;
      for (const item of items) bytes += item.payload.length;
      let queue = this.pending.get(shard);
      if (!queue) {
        queue = [];
        this.pending.set(shard, queue);
      }
      queue.push({ items, bytes, resolve, caller });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // After the poll phase: every request read in this turn has submitted by then.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const pending = [...this.pending];
    this.pending.clear();
    // Every call of this turn is written synchronously below: corked, they leave in one write per node.
    const uncork = corkMasters(this.redis);
    try {
      this.writeCalls(pending);
    } finally {
      uncork();
    }
  }

  private writeCalls(pending: [number, Submission[]][]): void {
    for (const [shard, submissions] of pending) {
      let call: Submission[] = [];
      let events = 0;
      let bytes = 0;
      for (const submission of submissions) {
        if (
          call.length > 0 &&
          (events + submission.items.length > this.maxEvents || bytes + submission.bytes > this.maxBytes)
        ) {
          void this.send(shard, call);
          call = [];
          events = 0;
          bytes = 0;
        }
        call.push(submission);
        events += submission.items.length;
        bytes += submission.bytes;
      }
      if (call.length > 0) void this.send(shard, call);
    }
  }

  /**
   * Runs one script call for the submissions and resolves each; never rejects. Tracing on, a call that
   * carries sampled requests is a span linked to each of them (see startCallerSpan).
   */
  private send(shard: number, submissions: Submission[]): Promise<void> {
    if (!tracingEnabled()) return this.call(shard, submissions);
    // Most calls carry no sampled request: nothing is allocated for them.
    let callers: string[] | undefined;
    for (const submission of submissions) if (submission.caller !== undefined) (callers ??= []).push(submission.caller);
    if (callers === undefined) return this.call(shard, submissions);
    // Not made active (see traceparentOf): the call's outcome is set on it by `call`.
    const span = startCallerSpan("enqueue", callers, {
      kind: SpanKind.CLIENT,
      attributes: { "verdict.shard": shard, "verdict.requests": submissions.length },
    });
    if (span === undefined) return this.call(shard, submissions);
    return this.call(shard, submissions, span).finally(() => span.end());
  }

  private async call(shard: number, submissions: Submission[], span?: Span): Promise<void> {
    const started = performance.now();
    let count = 0;
    for (const submission of submissions) count += submission.items.length;
    if (this.redis.status !== "ready") return this.fail(span, submissions, "rejected", count, started);
    const keys = [this.keys.stream(shard)];
    // Built only when an event carries an idempotency key: most calls have none.
    let hashIndex: Map<string, number> | undefined;
    const args: (string | number | Buffer)[] = [this.options.maxShardBacklog, ENTRY_FIELD];
    // Consecutive events without idempotency keys travel as one framed argument: the script appends them
    // as they are, and the per-argument cost (here and in Redis) is paid once per run, not per event.
    let run: EnqueueItem[] = [];
    for (const submission of submissions) {
      for (const item of submission.items) {
        if (item.idempotencyKey === undefined) {
          run.push(item);
          continue;
        }
        if (run.length > 0) {
          args.push(0, run.length, frameRun(run));
          run = [];
        }
        const hash = this.keys.idempotency(shard, item.accountId, item.outcomeKey);
        hashIndex ??= new Map();
        let index = hashIndex.get(hash);
        if (index === undefined) {
          keys.push(hash);
          index = keys.length;
          hashIndex.set(hash, index);
        }
        args.push(index, item.idempotencyKey, frameRun([item]));
      }
    }
    if (run.length > 0) args.push(0, run.length, frameRun(run));

    let reply: EnqueueScriptReplies["enqueue"];
    try {
      reply = await this.scripts.run("enqueue", keys, args);
    } catch (error) {
      return this.fail(span, submissions, classify(error), count, started);
    }
    if (reply === BACKLOG_FULL) return this.fail(span, submissions, "rejected", count, started, "backlog");
    // Any other shape: the script ran but answered in a way we do not know, so the events may be in the stream.
    if (typeof reply !== "string" || reply.length !== count)
      return this.fail(span, submissions, "unconfirmed", count, started);
    // One WAIT per script call: appended on the master is not yet safe from its failover.
    const replicas = this.options.replicaAcks ?? 0;
    if (replicas > 0) {
      const left = (this.options.enqueueTimeoutMs ?? 2000) - (performance.now() - started);
      if (!(await replicated(this.redis, keys[0]!, replicas, left)))
        return this.fail(span, submissions, "unconfirmed", count, started, "replicas");
    }
    this.observe("ok", count, (performance.now() - started) / 1000);
    span?.setAttributes({ "verdict.events": count, "verdict.enqueue.result": "ok" });
    let at = 0;
    for (const submission of submissions) {
      const results: EnqueueResult[] = [];
      for (let i = 0; i < submission.items.length; i++)
        results.push(reply.charCodeAt(at++) === 49 ? "appended" : "duplicate");
      submission.resolve(results);
    }
  }

  /** Resolves every event of the call with `reason`; `observed` is what the metrics are told. */
  private fail(
    span: Span | undefined,
    submissions: Submission[],
    reason: "rejected" | "unconfirmed",
    count: number,
    started: number,
    observed: "rejected" | "unconfirmed" | "backlog" | "replicas" = reason,
  ): void {
    this.observe(observed, count, (performance.now() - started) / 1000);
    span?.setAttributes({ "verdict.events": count, "verdict.enqueue.result": observed });
    span?.setStatus({ code: SpanStatusCode.ERROR, message: observed });
    for (const submission of submissions) submission.resolve(submission.items.map(() => reason));
  }
}

/** Never sent or refused before running -> rejected; sent and then lost, timed out or failed -> unconfirmed. */
function classify(error: unknown): "rejected" | "unconfirmed" {
  if (!(error instanceof Error)) return "unconfirmed";
  if (NOT_SENT.test(error.message)) return "rejected";
  if (error.name === "ReplyError" && REFUSED_BEFORE_RUNNING.test(error.message)) return "rejected";
  return "unconfirmed";
}
