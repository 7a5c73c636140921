--[[
  Turns a page of outbox entries into messages, one per endpoint each entry is for, and deletes the
  entries: all or nothing, so a crash makes no second message, and a message that exists already (the
  entry fanned out twice by a stale owner) is left as it is. An entry no endpoint wants is only deleted.
  One call per page, not per entry: a call's fixed cost was a good part of a message's.

  KEYS[1] the shard's outbox (stream)
  KEYS[2] the shard's message sequence (counter)
  KEYS[3] the shard's active endpoints (set)
  then, for each entry and each of its endpoints in turn: the endpoint's queue, the message hash, the
  endpoint's listing index
  ARGV[1] now (ms)   ARGV[2] retention (ms)
  then, for each entry: its outbox entry id, message id, event type, order key (the outcome ref), body,
  n (its endpoints), and the n endpoints' members of the active set

  Returns the number of messages created.
]]
local now = tonumber(ARGV[1])
local retention = tonumber(ARGV[2])
local created = 0
local k = 3
local a = 3
while a <= #ARGV do
  local entry, id, event_type, order, body = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
  local endpoints = tonumber(ARGV[a + 5])
  for i = 1, endpoints do
    local queue, message, listing = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]
    k = k + 3
    if redis.call('EXISTS', message) == 0 then
      redis.call('HSET', message, 'id', id, 'type', event_type, 'order', order, 'body', body,
        'status', 'pending', 'attempts', 0, 'tries', 0, 'next_at', now, 'created_at', now)
      redis.call('PEXPIRE', message, retention)
      redis.call('ZADD', queue, redis.call('INCR', KEYS[2]), id)
      redis.call('ZADD', listing, now, id)
      redis.call('ZREMRANGEBYSCORE', listing, '-inf', now - retention)
      redis.call('PEXPIRE', listing, retention)
      redis.call('SADD', KEYS[3], ARGV[a + 5 + i])
      created = created + 1
    end
  end
  redis.call('XDEL', KEYS[1], entry)
  a = a + 6 + endpoints
end
return created
