// Delivery behind `track`: buffers events with backpressure, batches them per outcome lane, sends up to
// `maxInFlight` batches at once, and retries failed items in order (batch-answer.ts reads how each item
// fared) until each is accepted or given up.
import { retryDelayMs } from "./backoff.js";
import { decideAccepted, decideRefused, type Decide } from "./batch-answer.js";
import { NOT_ADMITTED, OrderingQueue, type Lane, type PendingEvent } from "./ordering-queue.js";
import type { ErrorContext, ResolvedOptions } from "./options.js";
import type { ClientStats } from "./stats.js";
import { activeTraceparent } from "./trace-context.js";
import type { Transport } from "./transport.js";
import { uuidv7 } from "./uuid-v7.js";
import { VerdictError } from "./verdict-error.js";
import type { BatchAccepted, VerdictEvent } from "./wire-types.js";

/** The service's batch body limit (interface spec, Limits): 5 MiB. */
export const MAX_BATCH_BODY_BYTES = 5 * 1024 * 1024;
/** `{"events":[` and `]}` around the items. */
const ENVELOPE_BYTES = '{"events":[]}'.length;
/** `,"idempotency_key":"<UUID v7>"` added to an event's JSON. */
const KEY_FIELD_BYTES = ',"idempotency_key":""'.length + 36;

interface FlushWaiter {
  /** Events with a lower seq still unsettled. */
  remaining: number;
  below: number;
  resolve: () => void;
}

/**
 * The least wait before events refused for the account's rate go again: what the service's `Retry-After`
 * says on a 429 for it (its bucket refills at least one event a second).
 */
const RATE_LIMITED_RETRY_MS = 1000;

/** The resolving functions of the promise `track` just made, left here by `captureResolvers` and read at once. */
const captured: Pick<PendingEvent, "resolve" | "reject"> = { resolve: () => {}, reject: () => {} };

/** One executor for every `track` promise: an executor closure per event is one more allocation on the hot path. */
function captureResolvers(resolve: () => void, reject: (error: unknown) => void): void {
  captured.resolve = resolve;
  captured.reject = reject;
}

export class EventSender {
  private readonly queue: OrderingQueue;
  /** Events whose `track` waits for room, in `track` order (PendingEvent without its lane, JSON and bytes yet). */
  private readonly waiting: (PendingEvent | undefined)[] = [];
  private waitingHead = 0;
  private flushWaiters: FlushWaiter[] = [];
  private nextSeq = 0;
  private buffered = 0;
  private inFlight = 0;
  private accepted = 0;
  private rejected = 0;
  private retried = 0;
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;
  /** A partial batch has waited `flushIntervalMs`: it may go without filling up. */
  private lingered = false;
  private closed = false;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly transport: Transport,
  ) {
    this.queue = new OrderingQueue(() => this.pump());
  }

  track(event: VerdictEvent): Promise<void> {
    if (this.closed)
      return Promise.reject(new VerdictError(0, "CLIENT_CLOSED", "the client is closed: track() after close()"));
    const promise = new Promise<void>(captureResolvers);
    const pending: PendingEvent = {
      event,
      json: "",
      idempotencyKey: undefined,
      bytes: 0,
      lane: NOT_ADMITTED,
      next: undefined,
      attempts: 0,
      seq: this.nextSeq++,
      traceparent: activeTraceparent(),
      resolve: captured.resolve,
      reject: captured.reject,
    };
    // Nobody overtakes an event already waiting for room: that would reorder its outcome.
    if (this.buffered < this.options.maxBufferedEvents && this.waitingHead === this.waiting.length) this.admit(pending);
    else this.waiting.push(pending);
    return promise;
  }

  /** Resolves once every event tracked before the call has settled (accepted or rejected). */
  flush(): Promise<void> {
    const remaining = this.buffered + this.waiting.length - this.waitingHead;
    if (remaining === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.flushWaiters.push({ remaining, below: this.nextSeq, resolve });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  stats(): ClientStats {
    return {
      buffered: this.buffered,
      waiting: this.waiting.length - this.waitingHead,
      inFlight: this.inFlight,
      accepted: this.accepted,
      rejected: this.rejected,
      retried: this.retried,
    };
  }

  /** Serialises the event (minting its idempotency key) and queues it on its outcome's lane. */
  private admit(pending: PendingEvent): void {
    const event: unknown = pending.event;
    pending.event = undefined;
    let json: string;
    try {
      json = JSON.stringify(event) ?? "null";
    } catch (error) {
      // A BigInt or a cycle: nothing could send it.
      this.rejected++;
      pending.reject(
        new VerdictError(0, "VALIDATION_ERROR", `the event cannot be serialised as JSON: ${String(error)}`, undefined, {
          cause: error,
        }),
      );
      this.notifyFlush(pending.seq);
      return;
    }
    // A malformed event (not an object, no key) still goes to the service, which says what is wrong with it.
    const object = isObject(event) ? event : undefined;
    if (this.options.idempotency === "auto" && object && object.idempotency_key === undefined && json.endsWith("}")) {
      // Kept beside the JSON and spliced in as the batch body is built: the caller's event is left as it
      // was, no copy of it is made, and a waiting event holds two flat strings rather than the pieces of
      // a spliced one (what each garbage collection of the young generation must copy while it waits).
      pending.idempotencyKey = uuidv7();
    }
    // Variant A names its outcome by outcome_key, Variant B by key; both share the account's key space.
    const key = object ? (object.outcome_key ?? object.key) : undefined;
    pending.json = json;
    // UTF-8 takes at most 3 bytes per UTF-16 unit: for small events that bound is as good as the exact count
    // (500 of them stay far below 5 MiB), which is only taken for large ones. The key field is ASCII.
    pending.bytes =
      (json.length < 1024 ? json.length * 3 : Buffer.byteLength(json)) +
      (pending.idempotencyKey === undefined ? 0 : KEY_FIELD_BYTES);
    pending.lane = this.queue.lane(typeof key === "string" ? key : "");
    this.buffered++;
    if (pending.bytes + 1 + ENVELOPE_BYTES > MAX_BATCH_BODY_BYTES) {
      this.reject(
        pending,
        new VerdictError(
          0,
          "PAYLOAD_TOO_LARGE",
          `the event is ${pending.bytes} bytes: no batch can carry it (5 MiB body limit)`,
        ),
      );
      return;
    }
    this.queue.push(pending);
    this.pump();
  }

  /** Sends what may go now: full batches at once, a partial one after `flushIntervalMs` or on `flush()`. */
  private pump(): void {
    const { maxBatchSize, maxInFlight } = this.options;
    while (this.inFlight < maxInFlight && this.queue.readyEvents > 0) {
      if (this.queue.readyEvents < maxBatchSize && !this.lingered && this.flushWaiters.length === 0) {
        this.lingerTimer ??= setTimeout(() => {
          this.lingerTimer = undefined;
          this.lingered = true;
          this.pump();
        }, this.options.flushIntervalMs);
        return;
      }
      const batch = this.queue.take(maxBatchSize, MAX_BATCH_BODY_BYTES - ENVELOPE_BYTES);
      if (batch.length === 0) break;
      void this.send(batch);
    }
    if (this.queue.readyEvents === 0) this.lingered = false;
  }

  private async send(batch: PendingEvent[]): Promise<void> {
    this.inFlight++;
    // One flat string by join: concatenating 500 events made a rope of as many pieces that the request's
    // encoding then had to flatten, a second copy of the body.
    const items = new Array<string>(batch.length);
    // The batch continues the trace of its first event tracked inside a span: the span active now (in a
    // timer) belongs to nobody in particular.
    let traceparent: string | undefined;
    for (let i = 0; i < batch.length; i++) {
      const event = batch[i]!;
      if (event.attempts++ > 0) this.retried++;
      traceparent ??= event.traceparent;
      items[i] = event.idempotencyKey === undefined ? event.json : withIdempotencyKey(event.json, event.idempotencyKey);
    }
    // The envelope joins its first and last items rather than the joined text, which would make a rope again.
    items[0] = `{"events":[${items[0]!}`;
    items[items.length - 1] += "]}";
    const body = items.join(",");
    // The answer is read inside the try and acted on outside it: an exception while settling must never
    // reach the catch, which would settle the same events a second time.
    let answer: BatchAccepted | undefined;
    let failure: VerdictError | undefined;
    try {
      const body202 = await this.transport.request("POST", "/v1/events/batch", {
        body,
        traceparent: traceparent ?? null,
      });
      if (isBatchAccepted(body202)) answer = body202;
      else failure = new VerdictError(202, "UNEXPECTED_RESPONSE", "the batch answer is not the service's 202 body");
    } catch (error) {
      failure =
        error instanceof VerdictError
          ? error
          : new VerdictError(0, "UNEXPECTED_RESPONSE", `batch answer could not be read: ${String(error)}`, undefined, {
              cause: error,
            });
    }
    this.inFlight--;
    if (answer) this.answered(batch, answer);
    else this.failed(batch, failure!);
    this.pump();
  }

  /** Tells `onError`; what it throws is dropped, since a logging callback must not stop delivery. */
  private report(error: VerdictError, context: ErrorContext): void {
    try {
      this.options.onError?.(error, context);
    } catch {
      // Ignored by design (docs/client.md, Options).
    }
  }

  /** A 202: decides each item by the answer's `failed` list, and tells `onError` of what was not taken. */
  private answered(batch: PendingEvent[], answer: BatchAccepted): void {
    const { decide, tally } = decideAccepted(answer, this.options.retry.maxAttempts);
    this.settleLanes(batch, decide);
    const count = tally.rejected + tally.unconfirmed;
    if (count > 0 && this.options.onError) {
      const code = tally.unconfirmed > 0 ? "EVENT_UNCONFIRMED" : "EVENT_REJECTED";
      const error = new VerdictError(
        202,
        code,
        `batch answered 202 with ${tally.unconfirmed} unconfirmed and ${tally.rejected} rejected items`,
      );
      this.report(error, { events: count, willRetry: tally.givenUp < count });
    }
    if (tally.rateLimited > 0 && this.options.onError) {
      this.report(
        new VerdictError(
          202,
          "QUOTA_EXCEEDED",
          `batch answered 202 with ${tally.rateLimited} items refused for the account's events-per-second quota`,
        ),
        { events: tally.rateLimited, willRetry: true },
      );
    }
  }

  /** The whole request failed: tells `onError`, then decides each event by the error. */
  private failed(batch: PendingEvent[], error: VerdictError): void {
    const { decide, willRetry } = decideRefused(error, this.options.retry.maxAttempts, batch.length);
    this.report(error, { events: batch.length, willRetry });
    this.settleLanes(batch, decide, error.retryAfterMs);
  }

  /**
   * Decides each event of a returned batch (`accept`, `retry` after a backoff, `throttle`: retry no sooner
   * than the rate quota allows, `resend` at once, or the error to reject it with) and hands each lane back to
   * the queue with its events to send again.
   */
  private settleLanes(batch: PendingEvent[], decide: Decide, retryAfterMs = 0): void {
    let lane: Lane | undefined;
    const again: PendingEvent[] = [];
    let backoff = false;
    let floorMs = retryAfterMs;
    const handBack = (): void => {
      if (!lane) return;
      const attempt = Math.max(1, again[0]?.attempts ?? 1);
      this.queue.settle(lane, again, backoff ? retryDelayMs(attempt, this.options.retry, floorMs) : 0);
      // queue.settle links the events and keeps no list, so one serves every lane of the batch.
      again.length = 0;
      backoff = false;
      floorMs = retryAfterMs;
    };
    // A batch holds each lane's events together, in lane order (OrderingQueue.take).
    for (let index = 0; index < batch.length; index++) {
      const event = batch[index]!;
      if (event.lane !== lane) {
        handBack();
        lane = event.lane;
      }
      const decision = decide(event, index);
      if (decision === "accept") this.accept(event);
      else if (decision === "retry" || decision === "resend" || decision === "throttle") {
        again.push(event);
        backoff ||= decision !== "resend";
        if (decision === "throttle") floorMs = Math.max(floorMs, RATE_LIMITED_RETRY_MS);
      } else this.reject(event, decision);
    }
    handBack();
  }

  private accept(event: PendingEvent): void {
    this.accepted++;
    event.resolve();
    this.settled(event);
  }

  private reject(event: PendingEvent, error: VerdictError): void {
    this.rejected++;
    event.reject(error);
    this.settled(event);
  }

  /** Frees the event's room in the buffer for a waiting `track`, and tells `flush` callers. */
  private settled(event: PendingEvent): void {
    this.buffered--;
    this.notifyFlush(event.seq);
    while (this.waitingHead < this.waiting.length && this.buffered < this.options.maxBufferedEvents) {
      const next = this.waiting[this.waitingHead]!;
      this.waiting[this.waitingHead++] = undefined;
      this.admit(next);
    }
    if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
      this.waiting.splice(0, this.waitingHead);
      this.waitingHead = 0;
    }
  }

  /** Counts the event with sequence number `seq` as settled for every `flush` that waits for it. */
  private notifyFlush(seq: number): void {
    if (this.flushWaiters.length === 0) return;
    let done = false;
    for (const waiter of this.flushWaiters) {
      if (seq < waiter.below && --waiter.remaining === 0) {
        waiter.resolve();
        done = true;
      }
    }
    if (done) this.flushWaiters = this.flushWaiters.filter((waiter) => waiter.remaining > 0);
  }
}

/** The event's JSON (an object's) with its minted key as the last field; `{}` has no field to follow. */
function withIdempotencyKey(json: string, key: string): string {
  return json === "{}" ? `{"idempotency_key":"${key}"}` : `${json.slice(0, -1)},"idempotency_key":"${key}"}`;
}

function isBatchAccepted(body: unknown): body is BatchAccepted {
  return typeof body === "object" && body !== null && Array.isArray((body as { failed?: unknown }).failed);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
