// Webhook endpoints: where an account's notifications go, and the secrets that sign them.

export type WebhookEventType = "outcome.confirmed" | "outcome.failed" | "dead_letter.created" | "charge.created";

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  "outcome.confirmed",
  "outcome.failed",
  "dead_letter.created",
  "charge.created",
];

/** An endpoint as stored (JSON under the account's hash tag). */
export interface WebhookEndpointRecord {
  id: string;
  url: string;
  /** Null: every event type. */
  event_types: WebhookEventType[] | null;
  description: string | null;
  enabled: boolean;
  /** `whsec_` + base64 of 32 random bytes. */
  secret: string;
  /** The secret before the last rotation, which keeps signing until `previous_secret_until` (ms). */
  previous_secret: string | null;
  previous_secret_until: number | null;
  /** ISO 8601. */
  created_at: string;
}
