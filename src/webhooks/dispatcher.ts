// The webhook dispatcher of a worker process: for every shard this worker owns (holds the lease of), it
// fans the shard's outbox out to endpoints (outbox-fan-out.ts) and delivers the shard's queued messages. A
// shard's owner is the only dispatcher of its shard, so work is shared as shards are, and a worker killed
// with -9 leaves its outbox and queues to the next owner (at-least-once: a round's attempts are recorded
// together at its end, so the messages of a round under way at the kill go out again, with the same
// webhook-ids). Each endpoint of each shard is delivered by its own runner: a slow or dead receiver holds up
// only its own messages, and never a shard actor (which only wrote the outbox).
import { Periodic } from "../runtime/periodic.js";
import type { Logger } from "../telemetry/logger.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { RecordStore } from "../records/record-store.js";
import type { WebhookEndpointRecord } from "../records/webhook-endpoint.js";
import { checkTarget, type CheckedTarget } from "./address-guard.js";
import { EndpointBackoff } from "./endpoint-backoff.js";
import { liveSecrets, WebhookEndpointStore } from "./endpoint-store.js";
import { FullEndpoints } from "./full-endpoints.js";
import { postWebhook, type AttemptResult } from "./http-delivery.js";
import { parseActiveMember, WebhookMessageStore, type AttemptRecord, type MessageLogLimits } from "./message-store.js";
import type { MessageStatus, StoredMessage } from "./message.js";
import { fanOutOutbox, type FanOutDeps } from "./outbox-fan-out.js";
import { signatureHeader } from "./signing.js";
import { WEBHOOK_USER_AGENT } from "./user-agent.js";
import { WebhookAccounts } from "./webhook-accounts.js";
import type { WebhookMetrics } from "./webhook-metrics.js";

export interface DispatcherDeps {
  client: RedisClient;
  keys: Keys;
  shards: number;
  records: RecordStore;
  /** Whether this process holds the shard's lease now. */
  owns(shard: number): boolean;
  retryScheduleMs: readonly number[];
  allowPrivateUrls: boolean;
  /** An endpoint failing every attempt for this long is disabled (VERDICT_WEBHOOK_DISABLE_AFTER). */
  disableAfterMs: number;
  /** How long and how many messages are kept (VERDICT_WEBHOOK_RETENTION, VERDICT_WEBHOOK_LOG_MAX). */
  limits: MessageLogLimits;
  logger: Logger;
  metrics: WebhookMetrics;
  /** How often owned shards are looked at. @default 100 */
  pollMs?: number;
}

/** A receiver gets this long to answer (Standard Webhooks' customary 15 s). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** A Retry-After is honoured up to this long. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;
/** Messages of one endpoint's queue (on one shard) looked at per round, and delivered at once at most. */
const QUEUE_WINDOW = 200;
const CONCURRENCY_PER_ENDPOINT = 8;
/** Rounds one runner makes before it yields to the next tick (which starts a fresh one if work remains). */
const MAX_ROUNDS_PER_RUN = 50;

/** The delay before the attempt after `tries` failed ones, with ±10% jitter; undefined when none is left. */
export function retryDelayMs(
  schedule: readonly number[],
  tries: number,
  random: () => number = Math.random,
): number | undefined {
  const base = schedule[tries - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (0.9 + 0.2 * random()));
}

export class WebhookDispatcher {
  private readonly messages: WebhookMessageStore;
  private readonly endpoints: WebhookEndpointStore;
  private readonly accounts: WebhookAccounts;
  private readonly fanOutDeps: FanOutDeps;
  private readonly backoff: EndpointBackoff;
  /** Whether every shard's set of accounts with endpoints is known complete (built once per process). */
  private accountsComplete = false;
  private completing: Promise<void> | undefined;
  private readonly fanningOut = new Set<number>();
  private readonly full = new FullEndpoints();
  private readonly scanning = new Set<number>();
  /** Runners by "<shard>\n<account>\n<endpoint>". */
  private readonly runners = new Map<string, Promise<void>>();
  /** Starts the runners each poll; the runners themselves run one per shard or endpoint. */
  private readonly polls: Periodic;
  /** The backlog gauge, and the accounts with endpoints until they are listed. */
  private readonly upkeep: Periodic;
  private stopped = false;

  constructor(private readonly deps: DispatcherDeps) {
    this.messages = new WebhookMessageStore(deps.client, deps.keys, deps.shards, deps.limits);
    this.accounts = new WebhookAccounts(deps.client, deps.keys, deps.shards);
    this.endpoints = new WebhookEndpointStore(deps.records, this.accounts);
    const { client, keys, logger, metrics } = deps;
    this.fanOutDeps = {
      client,
      keys,
      owns: (shard) => deps.owns(shard),
      endpoints: this.endpoints,
      messages: this.messages,
      logger,
      metrics,
    };
    const schedule = deps.retryScheduleMs;
    this.backoff = new EndpointBackoff((rounds) => retryDelayMs(schedule, Math.min(rounds, schedule.length)));
    this.polls = new Periodic(() => this.tick(), { intervalMs: deps.pollMs ?? 100 });
    // The gauge is not awaited: a stop never waits on a read of the backlog.
    this.upkeep = new Periodic(
      () => {
        void this.measureBacklog();
        this.completeAccounts();
      },
      { intervalMs: 5000 },
    );
  }

  start(): void {
    this.polls.start();
    this.upkeep.start();
    this.completeAccounts();
  }

  /**
   * Marks the accounts that had endpoints before the commit checked for them (an upgrade); until then the
   * commit writes every notification. Tried again every 5 s until it succeeds.
   */
  private completeAccounts(): void {
    if (this.accountsComplete || this.stopped || this.completing) return;
    this.completing = this.accounts
      .build()
      .then(() => {
        this.accountsComplete = true;
      })
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error }, "accounts with webhook endpoints not listed yet; retrying"),
      )
      .finally(() => {
        this.completing = undefined;
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([this.polls.stop(), this.upkeep.stop()]);
    await Promise.allSettled([...this.runners.values(), this.completing]);
  }

  private tick(): void {
    for (let shard = 0; shard < this.deps.shards; shard++) {
      if (this.stopped || !this.deps.owns(shard)) continue;
      if (!this.fanningOut.has(shard)) {
        this.fanningOut.add(shard);
        fanOutOutbox(this.fanOutDeps, shard, () => this.stopped, this.full.of(shard, Date.now()))
          .catch((error: unknown) => this.deps.logger.warn({ err: error, shard }, "webhook fan-out failed; retrying"))
          .finally(() => this.fanningOut.delete(shard));
      }
      if (!this.scanning.has(shard)) {
        this.scanning.add(shard);
        this.startRunners(shard)
          .catch((error: unknown) =>
            this.deps.logger.warn({ err: error, shard }, "webhook queue scan failed; retrying"),
          )
          .finally(() => this.scanning.delete(shard));
      }
    }
  }

  private async measureBacklog(): Promise<void> {
    const { client, keys, shards, metrics } = this.deps;
    try {
      let outbox = 0;
      let pending = 0;
      for (let shard = 0; shard < shards; shard++) {
        if (!this.deps.owns(shard)) continue;
        outbox += await client.xlen(keys.webhookOutbox(shard));
        for (const member of await this.messages.active(shard)) {
          const { accountId, endpointId } = parseActiveMember(member);
          pending += await client.zcard(keys.webhookQueue(shard, accountId, endpointId));
        }
      }
      metrics.outboxBacklog.set(outbox);
      metrics.pendingMessages.set(pending);
    } catch (error) {
      this.deps.logger.debug({ err: error }, "webhook backlog not measured");
    }
  }

  private async startRunners(shard: number): Promise<void> {
    for (const member of await this.messages.active(shard)) {
      const id = `${shard}\n${member}`;
      if (this.runners.has(id)) continue;
      const { accountId, endpointId } = parseActiveMember(member);
      const runner = this.runEndpoint(shard, accountId, endpointId)
        .catch((error: unknown) =>
          this.deps.logger.warn({ err: error, shard, endpoint: endpointId }, "webhook delivery round failed"),
        )
        .finally(() => this.runners.delete(id));
      this.runners.set(id, runner);
    }
  }

  /**
   * One round of an endpoint's queue on a shard: the first pending message of each outcome, when due, is
   * attempted (several outcomes at once); later messages about an outcome wait for the earlier one.
   */
  private async runEndpoint(shard: number, accountId: string, endpointId: string): Promise<void> {
    // Round after round while there is work due, so a backlog drains without waiting for ticks.
    for (let round = 0; round < MAX_ROUNDS_PER_RUN && !this.stopped && this.deps.owns(shard); round++) {
      if ((await this.round(shard, accountId, endpointId)) === 0) return;
    }
  }

  /**
   * One round; returns how many attempts it made (0 when the endpoint was unreachable: the run ends). Its
   * attempts are recorded together at its end.
   */
  private async round(shard: number, accountId: string, endpointId: string): Promise<number> {
    // Per endpoint, not per shard: an unreachable receiver is so for every shard's runner alike.
    const runner = `${accountId}\n${endpointId}`;
    if (this.backoff.waiting(runner, Date.now())) return 0;
    const endpoint = await this.endpoints.get(accountId, endpointId);
    if (!endpoint) {
      await this.messages.dropQueue(shard, accountId, endpointId);
      return 0;
    }
    if (!endpoint.enabled) return 0;
    const ids = await this.messages.queueHead(shard, accountId, endpointId, QUEUE_WINDOW);
    const stored = await this.messages.states(shard, accountId, endpointId, ids);
    const now = Date.now();
    const seen = new Set<string>();
    const due: StoredMessage[] = [];
    const records: AttemptRecord[] = [];
    // Expired while queued (retention): nothing left to send; recording it takes it out of the queue.
    const expired = (messageId: string): void => {
      this.deps.metrics.messagesExpired.inc();
      records.push({
        messageId,
        attempt: {
          timestamp: new Date(now).toISOString(),
          status_code: null,
          error: "expired",
          duration_ms: 0,
          response: "",
        },
        status: "failed",
        nextAt: 0,
      });
    };
    for (const [i, message] of stored.entries()) {
      if (!message) {
        expired(ids[i]!);
        continue;
      }
      if (seen.has(message.order)) continue;
      seen.add(message.order);
      if (message.status === "pending" && message.nextAt <= now) due.push(message);
    }
    // Bodies only for what goes out now: most of a long queue is waiting for a retry.
    const bodies = await this.messages.bodies(
      shard,
      accountId,
      endpointId,
      due.map((message) => message.id),
    );
    const sendable = due.filter((message, i) => {
      const body = bodies[i];
      if (body === undefined) {
        expired(message.id);
        return false;
      }
      message.body = body;
      return true;
    });
    // The address is checked once a round, just before its attempts (DNS can change between rounds).
    let target: CheckedTarget | Error = new Error("not checked");
    if (sendable.length > 0)
      target = await checkTarget(endpoint.url, this.deps.allowPrivateUrls).catch((error: unknown) =>
        error instanceof Error ? error : new Error(String(error)),
      );
    const { delivered, unreachable, attempts } = await this.attemptAll(
      shard,
      accountId,
      endpoint,
      target,
      sendable,
      records,
    );
    await this.messages.recordAttempts(shard, accountId, endpointId, records);
    // An endpoint that took a message is not failing everything (once per round, not per message).
    if (delivered) await this.deps.client.hdel(this.deps.keys.webhookFailingSince(accountId), endpoint.id);
    if (unreachable) this.backoff.unreachable(runner, Date.now());
    else if (attempts > 0) this.backoff.reached(runner);
    return unreachable ? 0 : attempts;
  }

  /** A round's attempts, up to CONCURRENCY_PER_ENDPOINT at once; the first unreachable one starts no more. */
  private async attemptAll(
    shard: number,
    accountId: string,
    endpoint: WebhookEndpointRecord,
    target: CheckedTarget | Error,
    sendable: readonly StoredMessage[],
    records: AttemptRecord[],
  ): Promise<{ delivered: boolean; unreachable: boolean; attempts: number }> {
    let delivered = false;
    let unreachable = false;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < sendable.length && !unreachable && !this.stopped && this.deps.owns(shard)) {
        const message = sendable[next++]!;
        const outcome = await this.attempt(accountId, endpoint, target, message, records);
        if (outcome === "delivered") delivered = true;
        if (outcome === "unreachable") unreachable = true;
        if (outcome === "disabled") return;
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY_PER_ENDPOINT, sendable.length) }, worker));
    return { delivered, unreachable, attempts: next };
  }

  /** Delivers once; adds the attempt to the round's records. */
  private async attempt(
    accountId: string,
    endpoint: WebhookEndpointRecord,
    target: CheckedTarget | Error,
    message: StoredMessage,
    records: AttemptRecord[],
  ): Promise<"delivered" | "failed" | "unreachable" | "disabled"> {
    const { metrics, retryScheduleMs } = this.deps;
    const started = Date.now();
    const timestamp = Math.floor(started / 1000);
    let result: AttemptResult;
    if (target instanceof Error) {
      // Refused by the address guard or DNS: a failed attempt like any network error.
      result = { status: null, error: target.message, response: "", durationMs: 0, retryAfterMs: null };
    } else {
      // Encoded once: the bytes signed are the bytes sent.
      const body = Buffer.from(message.body);
      const headers = {
        "content-type": "application/json",
        "user-agent": WEBHOOK_USER_AGENT,
        "webhook-id": message.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(liveSecrets(endpoint, started), message.id, timestamp, body),
      };
      result = await postWebhook(target, headers, body, DELIVERY_TIMEOUT_MS);
    }
    metrics.deliverySeconds.observe(result.durationMs / 1000);
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    let status: MessageStatus = "delivered";
    let nextAt = 0;
    let disabled = false;
    if (ok) {
      metrics.deliveries.inc({ result: "success" });
    } else {
      const tries = message.tries + 1;
      let delay = retryDelayMs(retryScheduleMs, tries);
      if (delay !== undefined && (result.status === 429 || result.status === 503) && result.retryAfterMs !== null) {
        delay = Math.min(MAX_RETRY_AFTER_MS, result.retryAfterMs);
      }
      status = delay === undefined ? "failed" : "pending";
      nextAt = delay === undefined ? 0 : Date.now() + delay;
      metrics.deliveries.inc({ result: delay === undefined ? "failure" : "retry" });
      disabled = result.status === 410 || (await this.failingTooLong(accountId, endpoint.id, started));
      if (disabled) {
        await this.endpoints.patch(accountId, endpoint.id, { enabled: false });
        this.deps.logger.warn({ endpoint: endpoint.id, status: result.status }, "webhook endpoint disabled");
      }
    }
    records.push({
      messageId: message.id,
      attempt: {
        timestamp: new Date(started).toISOString(),
        status_code: result.status,
        error: result.error,
        duration_ms: Math.round(result.durationMs),
        response: result.response,
      },
      status,
      nextAt,
    });
    return ok ? "delivered" : disabled ? "disabled" : result.status === null ? "unreachable" : "failed";
  }

  /** Notes a failure; true when the endpoint has failed every attempt for `disableAfterMs`. */
  private async failingTooLong(accountId: string, endpointId: string, now: number): Promise<boolean> {
    const key = this.deps.keys.webhookFailingSince(accountId);
    await this.deps.client.hsetnx(key, endpointId, String(now));
    const since = Number(await this.deps.client.hget(key, endpointId));
    return Number.isFinite(since) && now - since >= this.deps.disableAfterMs;
  }
}
