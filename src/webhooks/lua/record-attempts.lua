--[[
  Records delivery attempts of messages in one endpoint's queue on a shard, and what follows each:
  delivered, pending (next attempt at a time) or failed. A message no longer pending leaves the queue and
  joins the endpoint's delivered-or-failed index (what the log's count may remove); an empty queue leaves
  the shard's active set (atomically with the check, so a concurrent fan-out is never lost). One call per
  delivery round, not per attempt. The shared body lives as long as the longest-lived message using it.

  KEYS[1] the endpoint's queue   KEYS[2] the shard's active set
  KEYS[3] the endpoint's listing index   KEYS[4] its delivered-or-failed index
  KEYS[3i + 2], KEYS[3i + 3], KEYS[3i + 4] message i's hash, its attempts (list) and its body, i from 1
  ARGV[1] retention (ms)   ARGV[2] the endpoint's member of the active set
  ARGV[3] messages kept per endpoint on this shard
  ARGV[4i] .. ARGV[4i + 3] message i's id, attempt (JSON), status (delivered | pending | failed),
  next attempt (ms)

  Returns how many delivered or failed messages are beyond the count (trim-log.lua removes them).
]]
local retention = ARGV[1]
local finished = false
for i = 1, (#KEYS - 4) / 3 do
  local hash, attempts, body = KEYS[3 * i + 2], KEYS[3 * i + 3], KEYS[3 * i + 4]
  local id, attempt, status, next_at = ARGV[4 * i], ARGV[4 * i + 1], ARGV[4 * i + 2], ARGV[4 * i + 3]
  local exists = redis.call('EXISTS', hash) == 1
  if exists then
    redis.call('HINCRBY', hash, 'attempts', 1)
    redis.call('HINCRBY', hash, 'tries', 1)
    redis.call('HSET', hash, 'status', status, 'next_at', next_at)
    redis.call('PEXPIRE', hash, retention)
    redis.call('PEXPIRE', body, retention)
    redis.call('RPUSH', attempts, attempt)
    -- A message resent many times keeps its latest attempts only.
    redis.call('LTRIM', attempts, -100, -1)
    redis.call('PEXPIRE', attempts, retention)
    if status ~= 'pending' then
      redis.call('ZADD', KEYS[4], redis.call('HGET', hash, 'created_at'), id)
      finished = true
    end
  end
  if status ~= 'pending' or not exists then
    redis.call('ZREM', KEYS[1], id)
  end
end
if redis.call('ZCARD', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], ARGV[2])
end
if not finished then
  return 0
end
redis.call('PEXPIRE', KEYS[4], retention)
return math.max(0, math.min(redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[3]), redis.call('ZCARD', KEYS[4])))
