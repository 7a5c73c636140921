--[[
  Deletes settled outcomes whose rows the archiver committed to PostgreSQL a grace period ago: each
  outcome's snapshot, event log and idempotency hash, its members in the account's listing indexes, and its
  ref in the shard's archived, settled and due-time indexes. Fenced like a commit: only the shard's owner
  deletes. The archiver recorded what it committed (the snapshot's SHA-1 and the log's length); an outcome
  that no longer matches is not deleted but put back in the settled index, to be archived again.

  KEYS[1] shard lease key
  KEYS[2] shard fence key
  KEYS[3] shard archived index (sorted set of refs by archive commit time)
  KEYS[4] what was archived of each ref (hash ref -> "<sha1> <log length> <members>": the snapshot's SHA-1,
          the log's length, and a JSON array of its creation, trajectory, anomaly and novelty index members,
          "" when unscored)
  KEYS[5] shard settled index
  KEYS[6] shard due-time index
  KEYS[7] shard archived-outcome filter (a bitmap, src/archive-read/archived-filter.ts): a deleted outcome's bits
          are set here, in the same script, so it is never gone from Redis and missing from the filter
  KEYS[8..] seven keys per outcome: snapshot, event log, idempotency hash, creation index, trajectory,
            anomaly and novelty indexes
  ARGV[1] expected lease value "<worker>:<token>"
  ARGV[2] now (ms): the settled score of an outcome put back
  ARGV[3] H, the filter's bit offsets per outcome
  ARGV[4..] 1 + H values per outcome: ref, then its H filter offsets

  Returns the number of outcomes deleted, or LEASE_LOST (-1, src/actors/actor-scripts.ts) when the lease
  is lost.
]]
-- @include "lease-held"
if not leaseHeld(KEYS[1], KEYS[2], ARGV[1]) then
  return -1
end

local hashes = tonumber(ARGV[3])
local deleted = 0
for i = 0, (#KEYS - 7) / 7 - 1 do
  local k = 8 + i * 7
  local a = 4 + i * (1 + hashes)
  local ref = ARGV[a]
  local snapshot = redis.call('GET', KEYS[k])
  if snapshot then
    -- What was archived, then the members: the keys must still hold what the SHA-1 and length describe.
    -- A record without members (an earlier version's) matches nothing, so its outcome is archived again.
    local archived = redis.call('HGET', KEYS[4], ref)
    local expected = redis.sha1hex(snapshot) .. ' ' .. redis.call('XLEN', KEYS[k + 1]) .. ' '
    if not archived or string.sub(archived, 1, #expected) ~= expected then
      redis.call('ZADD', KEYS[5], ARGV[2], ref)
    else
      local members = cjson.decode(string.sub(archived, #expected + 1))
      redis.call('DEL', KEYS[k], KEYS[k + 1], KEYS[k + 2])
      redis.call('ZREM', KEYS[k + 3], members[1])
      for s = 1, 3 do
        if members[1 + s] ~= '' then
          redis.call('ZREM', KEYS[k + 3 + s], members[1 + s])
        end
      end
      redis.call('ZREM', KEYS[6], ref)
      for h = 1, hashes do
        redis.call('SETBIT', KEYS[7], ARGV[a + h], 1)
      end
      deleted = deleted + 1
    end
  end
  redis.call('ZREM', KEYS[3], ref)
  redis.call('HDEL', KEYS[4], ref)
end
return deleted
