-- Settled outcomes and their event logs, moved out of Redis by the shard owner's outcome archiver once
-- VERDICT_HOT_RETENTION has passed since the verdict (docs/archive.md). Both tables are partitioned by
-- the month the outcome was created in, so an outcome and its events sit in partitions of the same month
-- and a month can be detached or dropped whole. The archiver creates a month's partitions before its
-- first row. Primary keys include the partition key, as PostgreSQL requires.
CREATE TABLE outcomes (
  account_id        text             NOT NULL,
  key               text             NOT NULL,
  created_at        timestamptz      NOT NULL,
  status            text             NOT NULL,
  task_key          text,
  agent_key         text,
  customer_key      text,
  verdict_at        timestamptz,
  trajectory        double precision,
  anomaly           double precision,
  novelty           double precision,
  -- Listing positions, exactly the members of the Redis indexes (src/outcomes/outcome-index.ts), compared
  -- byte by byte: a list walks Redis and PostgreSQL as one order and a cursor stays valid across both.
  created_member    text COLLATE "C" NOT NULL,
  trajectory_member text COLLATE "C",
  anomaly_member    text COLLATE "C",
  novelty_member    text COLLATE "C",
  -- The outcome exactly as Redis held it (msgpack, src/outcomes/outcome-record.ts): reads present it with
  -- the same code as a hot outcome, so the JSON does not change when it moves.
  snapshot          bytea            NOT NULL,
  archived_at       timestamptz      NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, key, created_at)
) PARTITION BY RANGE (created_at);

-- The filters and orders of GET /v1/outcomes (by creation, or by one score, with an optional filter).
CREATE INDEX outcomes_account_created ON outcomes (account_id, created_member);
CREATE INDEX outcomes_account_status ON outcomes (account_id, status, created_member);
CREATE INDEX outcomes_account_task ON outcomes (account_id, task_key, created_member) WHERE task_key IS NOT NULL;
CREATE INDEX outcomes_account_agent ON outcomes (account_id, agent_key, created_member) WHERE agent_key IS NOT NULL;
CREATE INDEX outcomes_account_customer ON outcomes (account_id, customer_key, created_member) WHERE customer_key IS NOT NULL;
CREATE INDEX outcomes_account_trajectory ON outcomes (account_id, trajectory_member) WHERE trajectory_member IS NOT NULL;
CREATE INDEX outcomes_account_anomaly ON outcomes (account_id, anomaly_member) WHERE anomaly_member IS NOT NULL;
CREATE INDEX outcomes_account_novelty ON outcomes (account_id, novelty_member) WHERE novelty_member IS NOT NULL;

-- One row per applied event of an archived outcome, in the order it was applied (the Redis log's entry id,
-- kept as its two numbers so that order is numeric).
CREATE TABLE outcome_events (
  account_id         text        NOT NULL,
  outcome_key        text        NOT NULL,
  outcome_created_at timestamptz NOT NULL,
  id_ms              bigint      NOT NULL,
  id_seq             bigint      NOT NULL,
  action             text        NOT NULL,
  -- For operators' queries; a NUL character in a string (which jsonb cannot hold) is stored as U+FFFD.
  -- The API presents the event from `envelope`, exactly as it was applied.
  properties         jsonb       NOT NULL,
  idempotency_key    text,
  received_at        timestamptz NOT NULL,
  envelope           bytea       NOT NULL,
  PRIMARY KEY (account_id, outcome_key, outcome_created_at, id_ms, id_seq)
) PARTITION BY RANGE (outcome_created_at);
