--[[
  Opens an outcome from a task (POST /v1/outcomes): writes its first snapshot unless the key is taken, or
  the account already has its share of the open-outcome quota open on this shard.
  The shard actor loads snapshots it does not hold, so an event enqueued after this returns finds it.

  KEYS[1] outcome snapshot key
  KEYS[2] account's outcome index on this shard (sorted set by creation time)
  KEYS[3] shard due-time index
  KEYS[4] the outcome's idempotency hash: it may carry the expiry set for events that came before the
          outcome existed (dead-lettered); from now on its keys live as long as the outcome
  KEYS[5] the shard's open outcomes per account (hash account -> count)
  KEYS[6] the insight rollup of the account's day of creation (hash group field -> the group's day, msgpack)
  KEYS[7] the shard's index of insight rollups (sorted set)
  ARGV[1] snapshot (msgpack)
  ARGV[2] index member ("<zero-padded creation ms>\n<key>", score 0: listed in lexical order)
  ARGV[3] due-time member
  ARGV[4] due time (ms), or -1 for none
  ARGV[5] account id (field of KEYS[5])
  ARGV[6] the account's open outcomes allowed on this shard
  ARGV[7] the task's group field in KEYS[6]
  ARGV[8] the hour of the day of creation (0 to 23)
  ARGV[9] the metric code of outcomes opened
  ARGV[10] the rollup's member of KEYS[7]
  ARGV[11] the day of creation (epoch ms), its score

  Returns false (null to the caller) when created, the existing snapshot when the key was taken, or
  OPEN_QUOTA_FULL (-1, named in outcome-store.ts) when the quota is full.
]]
local existing = redis.call('GET', KEYS[1])
if existing then
  return existing
end
if (tonumber(redis.call('HGET', KEYS[5], ARGV[5])) or 0) >= tonumber(ARGV[6]) then
  return -1
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PERSIST', KEYS[4])
redis.call('ZADD', KEYS[2], 'NX', 0, ARGV[2])
if tonumber(ARGV[4]) >= 0 then
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
end
redis.call('HINCRBY', KEYS[5], ARGV[5], 1)
-- One count added to the group's day, in the format of src/actors/lua/includes/rollup.lua.
local stored = redis.call('HGET', KEYS[6], ARGV[7])
local cells = stored and cmsgpack.unpack(stored) or {}
local hour = tonumber(ARGV[8])
local counted = false
for j = 1, #cells, 3 do
  if cells[j] == hour and cells[j + 1] == ARGV[9] then
    cells[j + 2] = cells[j + 2] + 1
    counted = true
  end
end
if not counted then
  local n = #cells
  cells[n + 1], cells[n + 2], cells[n + 3] = hour, ARGV[9], 1
end
redis.call('HSET', KEYS[6], ARGV[7], cmsgpack.pack(cells))
redis.call('ZADD', KEYS[7], ARGV[11], ARGV[10])
return false
