--[[
  Turns one outbox entry into one message per endpoint it is for, and deletes the entry: all or nothing, so
  a crash makes no second message, and a message that exists already (the entry fanned out twice by a
  stale owner) is left as it is.

  KEYS[1] the shard's outbox (stream)
  KEYS[2] the shard's message sequence (counter)
  KEYS[3] the shard's active endpoints (set)
  KEYS[3i+1], KEYS[3i+2], KEYS[3i+3] for endpoint i (from 1): its queue, the message hash, its listing index
  ARGV[1] outbox entry id   ARGV[2] now (ms)   ARGV[3] retention (ms)
  ARGV[4] message id        ARGV[5] event type ARGV[6] order key (the outcome ref)   ARGV[7] body
  ARGV[7+i] endpoint i's member of the active set

  Returns the number of messages created.
]]
local now = tonumber(ARGV[2])
local retention = tonumber(ARGV[3])
local created = 0
local endpoints = (#KEYS - 3) / 3
for i = 1, endpoints do
  local queue, message, listing = KEYS[3 * i + 1], KEYS[3 * i + 2], KEYS[3 * i + 3]
  if redis.call('EXISTS', message) == 0 then
    redis.call('HSET', message, 'id', ARGV[4], 'type', ARGV[5], 'order', ARGV[6], 'body', ARGV[7],
      'status', 'pending', 'attempts', 0, 'tries', 0, 'next_at', now, 'created_at', now)
    redis.call('PEXPIRE', message, retention)
    redis.call('ZADD', queue, redis.call('INCR', KEYS[2]), ARGV[4])
    redis.call('ZADD', listing, now, ARGV[4])
    redis.call('ZREMRANGEBYSCORE', listing, '-inf', now - retention)
    redis.call('PEXPIRE', listing, retention)
    redis.call('SADD', KEYS[3], ARGV[7 + i])
    created = created + 1
  end
end
redis.call('XDEL', KEYS[1], ARGV[1])
return created
