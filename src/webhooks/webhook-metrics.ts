// Webhook metrics: attempts by result, attempt latency, and the outbox backlog of the shards this process
// dispatches. No per-endpoint or per-account labels (unbounded series).
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

export interface WebhookMetrics {
  /** Attempts by result: success (2xx), retry (failed, another attempt scheduled), failure (message failed). */
  deliveries: Counter<"result">;
  deliverySeconds: Histogram;
  /** Outbox entries not yet fanned out, over the shards this worker owns. */
  outboxBacklog: Gauge;
  /** Messages waiting in the queues of the shards this worker owns (pending, due or scheduled). */
  pendingMessages: Gauge;
  /** Messages that reached the retention before they were delivered or failed: dropped, never sent. */
  messagesExpired: Counter;
  /** Messages never created because their endpoint's backlog of undelivered messages was full. */
  messagesSkipped: Counter;
}

export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  return {
    deliveries: new Counter({
      name: "verdict_webhook_deliveries_total",
      help: "Webhook delivery attempts by result: success, retry (failed; retried later), failure (failed; no attempt left)",
      labelNames: ["result"],
      registers: [registry],
    }),
    deliverySeconds: new Histogram({
      name: "verdict_webhook_delivery_seconds",
      help: "Duration of one webhook delivery attempt (connect to end of the kept response)",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers: [registry],
    }),
    outboxBacklog: new Gauge({
      name: "verdict_webhook_outbox_backlog",
      help: "Webhook outbox entries not yet fanned out to endpoints, over the shards this worker owns",
      registers: [registry],
    }),
    pendingMessages: new Gauge({
      name: "verdict_webhook_pending_messages",
      help: "Webhook messages queued for delivery (due or waiting for a retry), over the shards this worker owns",
      registers: [registry],
    }),
    messagesExpired: new Counter({
      name: "verdict_webhook_messages_expired_total",
      help: "Webhook messages dropped undelivered because they reached the retention (VERDICT_WEBHOOK_RETENTION) while queued",
      registers: [registry],
    }),
    messagesSkipped: new Counter({
      name: "verdict_webhook_messages_skipped_total",
      help: "Webhook messages not created because the endpoint's backlog of undelivered messages was full (VERDICT_WEBHOOK_BACKLOG_MAX)",
      registers: [registry],
    }),
  };
}
