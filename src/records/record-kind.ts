// The kinds of account configuration record: each is stored and listed under its own keys.
export type RecordKind = "task" | "agent" | "customer" | "rate-card" | "webhook-endpoint";
