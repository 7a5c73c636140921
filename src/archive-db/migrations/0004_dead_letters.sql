-- Dead letters, moved out of Redis by the shard owner's dead-letter archiver once VERDICT_DLQ_RETENTION has
-- passed or the account holds more than VERDICT_DLQ_MAX_PER_ACCOUNT (docs/archive.md); a letter whose event
-- Redis keeps only a prefix of is copied whole at once. Partitioned by month of dead_lettered_at (the
-- instant of its stream entry id); the primary key includes it, as PostgreSQL requires.
CREATE TABLE dead_letters (
  account_id       text        NOT NULL,
  -- The letter's position in its shard's dead-letter stream, what GET /v1/dlq shows as its id and lists
  -- in order: a list walks Redis and PostgreSQL as one order and a cursor stays valid across both.
  shard            integer     NOT NULL,
  entry_ms         bigint      NOT NULL,
  entry_seq        bigint      NOT NULL,
  dead_lettered_at timestamptz NOT NULL,
  code             text        NOT NULL,
  outcome_key      text        NOT NULL,
  -- The whole letter, event included (msgpack, src/outcomes/dead-letter.ts), presented with the same code
  -- as a letter in Redis.
  letter           bytea       NOT NULL,
  -- Set when a replay claimed the letter: it is no longer listed, and a copy of it arriving later (an
  -- archiver that read it before the replay) changes nothing.
  replayed_at      timestamptz,
  archived_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, shard, entry_ms, entry_seq, dead_lettered_at)
) PARTITION BY RANGE (dead_lettered_at);

-- GET /v1/dlq's order, all codes or one.
CREATE INDEX dead_letters_account_position ON dead_letters (account_id, entry_ms, entry_seq, shard) WHERE replayed_at IS NULL;
CREATE INDEX dead_letters_account_code_position ON dead_letters (account_id, code, entry_ms, entry_seq, shard) WHERE replayed_at IS NULL;
