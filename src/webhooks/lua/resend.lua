--[[
  Puts a message back in its endpoint's queue for delivery now, with a fresh retry schedule; it leaves
  the delivered-or-failed index, so the log's count does not remove it while it is pending.

  KEYS[1] message hash   KEYS[2] the endpoint's queue   KEYS[3] the shard's sequence   KEYS[4] active set
  KEYS[5] the message's body   KEYS[6] the endpoint's delivered-or-failed index
  ARGV[1] message id   ARGV[2] now (ms)   ARGV[3] retention (ms)   ARGV[4] the endpoint's active member

  Returns (named in message-store.ts, RESEND_REPLY) QUEUED (1), or UNKNOWN (0) when the message does not
  exist (unknown or expired).
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'status', 'pending', 'next_at', ARGV[2], 'tries', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[5], ARGV[3])
redis.call('ZREM', KEYS[6], ARGV[1])
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
end
redis.call('SADD', KEYS[4], ARGV[4])
return 1
