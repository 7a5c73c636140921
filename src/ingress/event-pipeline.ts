// The one way validated events reach their shard streams, for every route that submits them (the event
// routes, OTLP traces): the account's rate quota first, then per-shard group commit in send order, with a
// failed outcome's later events not sent.
import type { EnqueueItem, EnqueueResult, ShardEnqueuer } from "../streams/enqueue.js";
import { packEnvelopeFramed, type EventEnvelope } from "../streams/event-envelope.js";
import { shardOf } from "../streams/shard.js";
import { childrenByLabel, type Metrics } from "../telemetry/metrics.js";
import type { EventRateLimiter } from "./event-rate.js";

/** `rate_limited`: beyond the account's events-per-second quota, never enqueued; send it again later. */
export type SubmitResult = EnqueueResult | "rate_limited";

export interface EventPipelineDeps {
  enqueuer: ShardEnqueuer;
  shards: number;
  metrics: Metrics;
  rate: EventRateLimiter;
  /** Payload bytes per sequential chunk of one shard within a submission. @default 1 MiB */
  batchChunkBytes?: number;
}

interface Prepared {
  index: number;
  shard: number;
  item: EnqueueItem;
}

function prepare(envelope: EventEnvelope, index: number, shards: number, traceparent: string | undefined): Prepared {
  const { payload, framed } = packEnvelopeFramed(envelope, traceparent);
  const item: EnqueueItem = { accountId: envelope.accountId, outcomeKey: envelope.outcomeKey, payload, framed };
  if (envelope.idempotencyKey !== undefined) item.idempotencyKey = envelope.idempotencyKey;
  return { index, shard: shardOf(envelope.accountId, envelope.outcomeKey, shards), item };
}

export class EventPipeline {
  private readonly chunkBytes: number;
  private readonly counters;

  constructor(private readonly deps: EventPipelineDeps) {
    this.chunkBytes = deps.batchChunkBytes ?? 1024 * 1024;
    this.counters = childrenByLabel(deps.metrics.events, [
      "accepted",
      "duplicate",
      "rejected",
      "unconfirmed",
      "rate_limited",
    ] as const);
  }

  /**
   * Whether the account's last cut request says its bucket cannot hold this one yet (EventRateLimiter.refuses):
   * such a request is refused before its body is read, and counted as one rate-limited event.
   */
  refuses(accountId: string, events?: number): boolean {
    if (!this.deps.rate.refuses(accountId, events)) return false;
    this.count("rate_limited");
    return true;
  }

  /** Counts `n` events of one result in the events metric. */
  count(result: SubmitResult, n = 1): void {
    this.counters[result === "appended" ? "accepted" : result].inc(n);
  }

  /**
   * Submits one account's events in order and tells each one's fate (counted in the metrics). The events
   * beyond what the rate bucket grants are the last ones: an outcome whose event is refused has none of
   * its later ones sent either, as when an enqueue fails.
   */
  async submit(
    accountId: string,
    events: readonly EventEnvelope[],
    traceparent: string | undefined,
  ): Promise<SubmitResult[]> {
    const granted = await this.deps.rate.take(accountId, events.length);
    const byShard = new Map<number, Prepared[]>();
    for (let index = 0; index < granted; index++) {
      const prepared = prepare(events[index]!, index, this.deps.shards, traceparent);
      const list = byShard.get(prepared.shard);
      if (list) list.push(prepared);
      else byShard.set(prepared.shard, [prepared]);
    }
    const results: SubmitResult[] = new Array<SubmitResult>(events.length).fill("rate_limited", granted);
    await Promise.all([...byShard].map(([shard, items]) => this.writeShard(shard, items, results, traceparent)));
    const tally: Record<SubmitResult, number> = {
      appended: 0,
      duplicate: 0,
      rejected: 0,
      unconfirmed: 0,
      rate_limited: 0,
    };
    for (const result of results) tally[result]++;
    for (const [result, n] of Object.entries(tally) as [SubmitResult, number][]) if (n > 0) this.count(result, n);
    return results;
  }

  /**
   * Writes one shard's share in send order, chunk after chunk. Once an outcome's event fails, its later
   * events are not sent (rejected: never sent); other outcomes carry on.
   */
  private async writeShard(
    shard: number,
    items: Prepared[],
    results: SubmitResult[],
    traceparent: string | undefined,
  ): Promise<void> {
    const failedOutcomes = new Set<string>();
    let at = 0;
    while (at < items.length) {
      const chunk: Prepared[] = [];
      let bytes = 0;
      while (at < items.length && (chunk.length === 0 || bytes + items[at]!.item.payload.length <= this.chunkBytes)) {
        const next = items[at++]!;
        if (failedOutcomes.has(next.item.outcomeKey)) {
          results[next.index] = "rejected";
          continue;
        }
        chunk.push(next);
        bytes += next.item.payload.length;
      }
      if (chunk.length === 0) continue;
      const outcomes = await this.deps.enqueuer.submit(
        shard,
        chunk.map((p) => p.item),
        traceparent,
      );
      chunk.forEach((prepared, i) => {
        const result = outcomes[i]!;
        results[prepared.index] = result;
        if (result === "rejected" || result === "unconfirmed") failedOutcomes.add(prepared.item.outcomeKey);
      });
    }
  }

  /** Submits the single event of POST /v1/events, rate quota first; undefined when the quota refuses it. */
  async submitOne(
    accountId: string,
    event: EventEnvelope,
    traceparent: string | undefined,
  ): Promise<EnqueueResult | undefined> {
    const { shard, item } = prepare(event, 0, this.deps.shards, traceparent);
    if ((await this.deps.rate.take(accountId, 1)) === 0) {
      this.count("rate_limited");
      return undefined;
    }
    const [result] = await this.deps.enqueuer.submit(shard, [item], traceparent);
    this.count(result!);
    return result!;
  }
}
