-- Insight rollups moved out of Redis by the shard owner's rollup mover once their hour is older than
-- VERDICT_HOT_RETENTION (docs/insights.md). One row per move: a rollup hash of one shard, account and hour
-- as it stood when it left Redis. The move's id makes a repeated copy (a crash between copy and delete)
-- change nothing; an hour written again after its move (an event stamped late) moves again in a new row,
-- so reads add the rows of an hour up.
CREATE TABLE insight_rollups (
  move_id    text        PRIMARY KEY,
  account_id text        NOT NULL,
  hour       timestamptz NOT NULL,
  shard      integer     NOT NULL,
  -- field -> count (or a clause's text), the field names of src/outcomes/insight-rollup.ts.
  fields     jsonb       NOT NULL,
  moved_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX insight_rollups_account_hour ON insight_rollups (account_id, hour);
