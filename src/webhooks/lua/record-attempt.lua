--[[
  Records one delivery attempt of a message and what follows: delivered, pending (next attempt at a time)
  or failed. A message that is no longer pending leaves its endpoint's queue; an empty queue leaves the
  shard's active set (atomically with the check, so a concurrent fan-out is never lost).

  KEYS[1] message hash   KEYS[2] its attempts (list)   KEYS[3] the endpoint's queue   KEYS[4] active set
  ARGV[1] message id   ARGV[2] attempt (JSON)   ARGV[3] status: delivered | pending | failed
  ARGV[4] next attempt (ms)   ARGV[5] retention (ms)   ARGV[6] the endpoint's member of the active set
]]
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'attempts', 1)
  redis.call('HINCRBY', KEYS[1], 'tries', 1)
  redis.call('HSET', KEYS[1], 'status', ARGV[3], 'next_at', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('RPUSH', KEYS[2], ARGV[2])
  -- A message resent many times keeps its latest attempts only.
  redis.call('LTRIM', KEYS[2], -100, -1)
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
if ARGV[3] ~= 'pending' or redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZREM', KEYS[3], ARGV[1])
end
if redis.call('ZCARD', KEYS[3]) == 0 then
  redis.call('SREM', KEYS[4], ARGV[6])
end
return 1
