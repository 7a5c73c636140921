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
  KEYS[6] the insight rollup of the account's hour of creation (hash field -> count)
  KEYS[7] the shard's index of insight rollups (sorted set)
  ARGV[1] snapshot (msgpack)
  ARGV[2] index member ("<zero-padded creation ms>\n<key>", score 0: listed in lexical order)
  ARGV[3] due-time member
  ARGV[4] due time (ms), or -1 for none
  ARGV[5] account id (field of KEYS[5])
  ARGV[6] the account's open outcomes allowed on this shard
  ARGV[7] the rollup field counting the task's outcomes opened
  ARGV[8] the rollup's member of KEYS[7]
  ARGV[9] the hour of creation (epoch ms), its score

  Returns false when created, the existing snapshot when the key was taken, -1 when the quota is full.
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
redis.call('HINCRBY', KEYS[6], ARGV[7], 1)
redis.call('ZADD', KEYS[7], ARGV[9], ARGV[8])
return false
