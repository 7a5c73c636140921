-- Each charge's position in its shard's charge stream (the order GET /v1/charges lists in), so a charge
-- can leave Redis and still be listed in its place: the listing merges these rows with the streams.
-- Charges archived before this migration have none and keep their Redis entry.
ALTER TABLE charges ADD COLUMN shard integer, ADD COLUMN entry_ms bigint, ADD COLUMN entry_seq bigint;
CREATE INDEX charges_account_position ON charges (account_id, entry_ms, entry_seq, shard) WHERE entry_ms IS NOT NULL;
