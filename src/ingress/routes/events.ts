// POST /v1/events and POST /v1/events/batch: validate, stamp, shard and enqueue; answer only what Redis confirmed.
import type { ApiError } from "../../errors/api-error.js";
import { enqueueFailure } from "../../errors/enqueue-failure.js";
import { rateExceeded } from "../../errors/quota-exceeded.js";
import type { EnqueueItem, EnqueueResult, ShardEnqueuer } from "../../streams/enqueue.js";
import { packEnvelope, type EventEnvelope } from "../../streams/event-envelope.js";
import { shardOf } from "../../streams/shard.js";
import { childrenByLabel, type Metrics } from "../../telemetry/metrics.js";
import type { EventRateLimiter } from "../event-rate.js";
import type { Route } from "../router.js";
import { parseBatch, parseEvent } from "../validate-events.js";

export const MAX_EVENT_BODY_BYTES = 256 * 1024;
export const MAX_BATCH_BODY_BYTES = 5 * 1024 * 1024;

export interface EventRouteDeps {
  enqueuer: ShardEnqueuer;
  shards: number;
  metrics: Metrics;
  /** The events-per-second quota: each request's events are taken from its account's bucket first. */
  rate: EventRateLimiter;
  /** The quota's rate, named in the answer that refuses an event for it. */
  eventsPerSecond: number;
  /** Payload bytes per sequential chunk of one shard within a batch. @default 1 MiB */
  batchChunkBytes?: number;
}

/** `rate_limited`: beyond the account's events-per-second quota, never enqueued; send it again later. */
type Failure = "rejected" | "unconfirmed" | "rate_limited";
type Result = EnqueueResult | "rate_limited";

/** Seconds a refused sender waits: the bucket refills at least one event a second. */
const RATE_RETRY_AFTER_SECONDS = 1;

/** The 202 body of POST /v1/events. */
export interface EventAccepted {
  accepted: true;
  /** True when the idempotency key matched an earlier event: this one was not enqueued again. */
  duplicate: boolean;
}

/** The 202 body of POST /v1/events/batch: every item not in `failed` was enqueued (or was a duplicate). */
export interface BatchAccepted {
  accepted: number;
  failed: { index: number; reason: Failure }[];
  duplicates: number[];
}

interface Prepared {
  index: number;
  shard: number;
  item: EnqueueItem;
}

function prepare(envelope: EventEnvelope, index: number, shards: number, traceparent: string | undefined): Prepared {
  const item: EnqueueItem = { accountId: envelope.accountId, outcomeKey: envelope.outcomeKey, payload: packEnvelope(envelope, traceparent) };
  if (envelope.idempotencyKey !== undefined) item.idempotencyKey = envelope.idempotencyKey;
  return { index, shard: shardOf(envelope.accountId, envelope.outcomeKey, shards), item };
}

export function eventRoutes(deps: EventRouteDeps): Route[] {
  const { enqueuer, shards, metrics, rate } = deps;
  const chunkBytes = deps.batchChunkBytes ?? 1024 * 1024;
  const counters = childrenByLabel(metrics.events, ["accepted", "duplicate", "rejected", "unconfirmed", "rate_limited"] as const);
  const count = (result: Result, n = 1): void => counters[result === "appended" ? "accepted" : result].inc(n);
  /** A request refused whole for the rate, counted as one event (a batch's size is not read). */
  const refusedForRate = (): ApiError => {
    count("rate_limited");
    return rateExceeded(deps.eventsPerSecond, RATE_RETRY_AFTER_SECONDS);
  };

  /**
   * Writes one shard's share of a batch in send order, chunk after chunk. Once an outcome's event fails,
   * its later events are not sent (rejected: never sent); other outcomes carry on.
   */
  async function writeShard(shard: number, items: Prepared[], results: Result[], traceparent: string | undefined): Promise<void> {
    const failedOutcomes = new Set<string>();
    let at = 0;
    while (at < items.length) {
      const chunk: Prepared[] = [];
      let bytes = 0;
      while (at < items.length && (chunk.length === 0 || bytes + items[at]!.item.payload.length <= chunkBytes)) {
        const next = items[at++]!;
        if (failedOutcomes.has(next.item.outcomeKey)) {
          results[next.index] = "rejected";
          continue;
        }
        chunk.push(next);
        bytes += next.item.payload.length;
      }
      if (chunk.length === 0) continue;
      const outcomes = await enqueuer.submit(shard, chunk.map((p) => p.item), traceparent);
      chunk.forEach((prepared, i) => {
        const result = outcomes[i]!;
        results[prepared.index] = result;
        if (result === "rejected" || result === "unconfirmed") failedOutcomes.add(prepared.item.outcomeKey);
      });
    }
  }

  return [
    {
      method: "POST",
      path: "/v1/events",
      maxBodyBytes: MAX_EVENT_BODY_BYTES,
      admit: (accountId) => (rate.refuses(accountId, 1) ? refusedForRate() : undefined),
      async handler(req) {
        const { shard, item } = prepare(parseEvent(req.body, req), 0, shards, req.traceparent);
        if ((await rate.take(req.accountId, 1)) === 0) throw refusedForRate();
        const [result] = await enqueuer.submit(shard, [item], req.traceparent);
        count(result!);
        switch (result) {
          case "appended":
          case "duplicate":
            return { status: 202, body: { accepted: true, duplicate: result === "duplicate" } satisfies EventAccepted };
          default:
            throw enqueueFailure(result!, "event");
        }
      },
    },
    {
      method: "POST",
      path: "/v1/events/batch",
      maxBodyBytes: MAX_BATCH_BODY_BYTES,
      // Refused whole while the account's bucket cannot hold what its last cut request asked: the items
      // are not known before the body is parsed, which is the work this spares.
      admit: (accountId) => (rate.refuses(accountId) ? refusedForRate() : undefined),
      async handler(req) {
        const events = parseBatch(req.body, req);
        // The events beyond what the bucket grants are the request's last ones: an outcome whose event is
        // refused has none of its later ones sent either, as when an enqueue fails.
        const granted = await rate.take(req.accountId, events.length);
        const byShard = new Map<number, Prepared[]>();
        for (let index = 0; index < granted; index++) {
          const prepared = prepare(events[index]!, index, shards, req.traceparent);
          const list = byShard.get(prepared.shard);
          if (list) list.push(prepared);
          else byShard.set(prepared.shard, [prepared]);
        }
        const results: Result[] = new Array<Result>(events.length).fill("rate_limited", granted);
        await Promise.all([...byShard].map(([shard, items]) => writeShard(shard, items, results, req.traceparent)));

        const failed: BatchAccepted["failed"] = [];
        const duplicates: number[] = [];
        const tally: Record<Result, number> = { appended: 0, duplicate: 0, rejected: 0, unconfirmed: 0, rate_limited: 0 };
        results.forEach((result, index) => {
          if (result === "rejected" || result === "unconfirmed" || result === "rate_limited") failed.push({ index, reason: result });
          else if (result === "duplicate") duplicates.push(index);
          tally[result]++;
        });
        for (const [result, n] of Object.entries(tally) as [Result, number][]) if (n > 0) count(result, n);
        const body = { accepted: events.length - failed.length, failed, duplicates } satisfies BatchAccepted;
        return granted < events.length ? { status: 202, body, headers: { "Retry-After": String(RATE_RETRY_AFTER_SECONDS) } } : { status: 202, body };
      },
    },
  ];
}
