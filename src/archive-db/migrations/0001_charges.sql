-- Charges, the system of record for billing: one row per confirmed Variant B outcome, copied from Redis by
-- the worker that owns the outcome's shard. Partitioned by month of confirmation (the archiver creates a
-- month's partition before its first row); the primary key includes the partition key, as PostgreSQL
-- requires, and the charge id alone is unique in practice (it is derived from the account and outcome).
CREATE TABLE charges (
  id            text             NOT NULL,
  account_id    text             NOT NULL,
  outcome_key   text             NOT NULL,
  customer_key  text             NOT NULL,
  agent_key     text             NOT NULL,
  rate_card_key text             NOT NULL,
  currency      text             NOT NULL,
  unit_amount   bigint           NOT NULL,
  attribution   double precision NOT NULL,
  amount        bigint           NOT NULL,
  confirmed_at  timestamptz      NOT NULL,
  archived_at   timestamptz      NOT NULL DEFAULT now(),
  PRIMARY KEY (id, confirmed_at)
) PARTITION BY RANGE (confirmed_at);

-- The listing filters of GET /v1/charges: an account's charges in time order, optionally of one customer.
CREATE INDEX charges_account_time ON charges (account_id, confirmed_at, id);
CREATE INDEX charges_account_customer_time ON charges (account_id, customer_key, confirmed_at, id);
