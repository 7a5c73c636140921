// The read and configuration API (everything beyond event submission), assembled for the app.
import type { ArchivedCharges } from "../../archive-read/archived-charges.js";
import type { ArchivedDeadLetters } from "../../archive-read/archived-dead-letters.js";
import type { ArchivedOutcomes } from "../../archive-read/archived-outcomes.js";
import type { QuotaOptions } from "../../config/quotas.js";
import { enqueueFailure } from "../../errors/enqueue-failure.js";
import type { Route } from "../../ingress/router.js";
import { ChargeStore } from "../../stores/charge-store.js";
import { DeadLetterStore } from "../../stores/dead-letter-store.js";
import { OutcomeStore } from "../../stores/outcome-store.js";
import { replayClaim } from "../../outcomes/replay-claim.js";
import type { RedisClient } from "../../redis/client.js";
import { RecordStore } from "../../records/record-store.js";
import { packEnvelope } from "../../streams/event-envelope.js";
import type { ShardEnqueuer } from "../../streams/enqueue.js";
import type { Keys } from "../../redis/keys.js";
import type { MessageLogLimits } from "../../webhooks/message-store.js";
import { shardOf } from "../../streams/shard.js";
import { chargeRoutes } from "./charges.js";
import { configurationRoutes } from "./configuration.js";
import { deadLetterRoutes, type ReplayEnqueue } from "./dead-letters.js";
import { insightRoutes } from "./insights.js";
import { AccountReadSlots } from "../account-read-slots.js";
import type { InsightReader } from "../insight-answer.js";
import { outcomeRoutes } from "./outcomes.js";
import { taskRoutes } from "./tasks.js";
import { webhookRoutes } from "./webhooks.js";

export interface ResourceRouteDeps {
  redis: RedisClient;
  keys: Keys;
  shards: number;
  enqueuer: ShardEnqueuer;
  clock: () => number;
  /** Webhook URLs may resolve to private addresses (VERDICT_WEBHOOK_ALLOW_PRIVATE_URLS). */
  webhookAllowPrivateUrls: boolean;
  /** How long and how many webhook messages are kept (VERDICT_WEBHOOK_RETENTION, VERDICT_WEBHOOK_LOG_MAX). */
  webhookLimits: MessageLogLimits;
  /** Where settled outcomes and charges go after their hot retention, when an archive is configured. */
  archive:
    | {
        outcomes: ArchivedOutcomes;
        charges: ArchivedCharges;
        deadLetters: ArchivedDeadLetters;
      }
    | undefined;
  /** Per-account quotas: records refuse creations beyond theirs, outcomes beyond the open-outcome quota. */
  quotas: QuotaOptions;
  /** Dead letters' events larger than this are presented truncated (options.dlqMaxEventBytes). */
  deadLetterMaxEventBytes: number;
  /** Answers GET /v1/insights (off the event loop: app/insight-thread.ts). */
  insights: InsightReader;
}

export function resourceRoutes({
  redis,
  keys,
  shards,
  enqueuer,
  clock,
  webhookAllowPrivateUrls,
  webhookLimits,
  archive,
  quotas,
  deadLetterMaxEventBytes,
  insights,
}: ResourceRouteDeps): Route[] {
  const records = new RecordStore(redis, keys, quotas);
  const outcomes = new OutcomeStore(redis, keys, shards, archive?.outcomes, quotas.openOutcomes);
  // A replay does not claim the event's own idempotency_key (the original entry, never applied, holds it) but
  // its delivery: replayed again after an unconfirmed enqueue put the letter back, it is a duplicate if the
  // first replay did get in, so it applies once.
  const replay: ReplayEnqueue = async (event, source) => {
    const [result] = await enqueuer.submit(shardOf(event.accountId, event.outcomeKey, shards), [
      {
        accountId: event.accountId,
        outcomeKey: event.outcomeKey,
        idempotencyKey: replayClaim(source),
        payload: packEnvelope(event),
      },
    ]);
    if (result === "rejected" || result === "unconfirmed") throw enqueueFailure(result, "replay");
  };
  return [
    ...taskRoutes(records),
    ...outcomeRoutes(outcomes, records, clock),
    ...deadLetterRoutes(
      new DeadLetterStore(redis, keys, shards, {
        archive: archive?.deadLetters,
        maxEventBytes: deadLetterMaxEventBytes,
      }),
      replay,
    ),
    ...configurationRoutes(records),
    ...chargeRoutes(new ChargeStore(redis, keys, shards, archive?.charges)),
    ...insightRoutes(insights, new AccountReadSlots(quotas.insightReads), clock),
    ...webhookRoutes({
      redis,
      keys,
      shards,
      records,
      allowPrivateUrls: webhookAllowPrivateUrls,
      limits: webhookLimits,
      clock,
    }),
  ];
}
