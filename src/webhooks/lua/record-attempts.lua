--[[
  Records delivery attempts of messages in one endpoint's queue on a shard, and what follows each:
  delivered, pending (next attempt at a time) or failed. A message no longer pending leaves the queue; an
  empty queue leaves the shard's active set (atomically with the check, so a concurrent fan-out is never
  lost). One call per delivery round, not per attempt.

  KEYS[1] the endpoint's queue   KEYS[2] the shard's active set
  KEYS[2i + 1], KEYS[2i + 2] message i's hash and its attempts (list), i from 1
  ARGV[1] retention (ms)   ARGV[2] the endpoint's member of the active set
  ARGV[4i - 1] .. ARGV[4i + 2] message i's id, attempt (JSON), status (delivered | pending | failed),
  next attempt (ms)
]]
local retention = ARGV[1]
for i = 1, (#KEYS - 2) / 2 do
  local hash, attempts = KEYS[2 * i + 1], KEYS[2 * i + 2]
  local id, attempt, status, next_at = ARGV[4 * i - 1], ARGV[4 * i], ARGV[4 * i + 1], ARGV[4 * i + 2]
  local exists = redis.call('EXISTS', hash) == 1
  if exists then
    redis.call('HINCRBY', hash, 'attempts', 1)
    redis.call('HINCRBY', hash, 'tries', 1)
    redis.call('HSET', hash, 'status', status, 'next_at', next_at)
    redis.call('PEXPIRE', hash, retention)
    redis.call('RPUSH', attempts, attempt)
    -- A message resent many times keeps its latest attempts only.
    redis.call('LTRIM', attempts, -100, -1)
    redis.call('PEXPIRE', attempts, retention)
  end
  if status ~= 'pending' or not exists then
    redis.call('ZREM', KEYS[1], id)
  end
end
if redis.call('ZCARD', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], ARGV[2])
end
return 1
