--[[
  Deletes settled outcomes that the archiver has committed to PostgreSQL: each outcome's snapshot, event
  log and idempotency hash, its members in the account's listing indexes, and its ref in the shard's
  settled and due-time indexes. Fenced like a commit: only the shard's owner deletes. An outcome whose
  snapshot or log is no longer the one archived (it changed since it was read) is left for the next pass.

  KEYS[1] shard lease key
  KEYS[2] shard fence key
  KEYS[3] shard settled index (sorted set of refs by verdict time)
  KEYS[4] shard due-time index
  KEYS[5..] seven keys per outcome: snapshot, event log, idempotency hash, creation index, trajectory,
            anomaly and novelty indexes
  ARGV[1] expected lease value "<worker>:<token>"
  ARGV[2..] seven values per outcome: ref, SHA-1 of the archived snapshot, number of archived log
            entries, creation index member, trajectory, anomaly and novelty members ("" when unscored)

  Returns the number of outcomes deleted, or -1 when the lease is lost.
]]
-- @include "lease-held"
if not leaseHeld(KEYS[1], KEYS[2], ARGV[1]) then
  return -1
end

local deleted = 0
for i = 0, (#KEYS - 4) / 7 - 1 do
  local k = 5 + i * 7
  local a = 2 + i * 7
  local snapshot = redis.call('GET', KEYS[k])
  if not snapshot then
    redis.call('ZREM', KEYS[3], ARGV[a])
  elseif redis.sha1hex(snapshot) == ARGV[a + 1] and redis.call('XLEN', KEYS[k + 1]) == tonumber(ARGV[a + 2]) then
    redis.call('DEL', KEYS[k], KEYS[k + 1], KEYS[k + 2])
    redis.call('ZREM', KEYS[k + 3], ARGV[a + 3])
    for s = 0, 2 do
      if ARGV[a + 4 + s] ~= '' then
        redis.call('ZREM', KEYS[k + 4 + s], ARGV[a + 4 + s])
      end
    end
    redis.call('ZREM', KEYS[3], ARGV[a])
    redis.call('ZREM', KEYS[4], ARGV[a])
    deleted = deleted + 1
  end
end
return deleted
