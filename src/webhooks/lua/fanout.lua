--[[
  Turns a page of outbox entries into messages, one per endpoint each entry is for, and deletes the
  entries: all or nothing, so a crash makes no second message, and a message that exists already (the
  entry fanned out twice by a stale owner) is left as it is. An entry no endpoint wants is only deleted.
  One call per page, not per entry: a call's fixed cost was a good part of a message's. The body is
  stored once per entry, whatever the number of endpoints; each endpoint's message holds only its state.

  KEYS[1] the shard's outbox (stream)
  KEYS[2] the shard's message sequence (counter)
  KEYS[3] the shard's active endpoints (set)
  then, for each entry with endpoints: the body (hash), then for each of its endpoints in turn: the
  endpoint's queue, the message hash, the endpoint's listing index, its delivered-or-failed index
  ARGV[1] now (ms)   ARGV[2] retention (ms)   ARGV[3] messages kept per endpoint on this shard
  ARGV[4] undelivered messages an endpoint may have queued on this shard: at that backlog it gets no new
  message (a receiver that is down cannot make the account's messages grow Redis without bound)
  then, for each entry: its outbox entry id, message id, event type, order key (the outcome ref), body,
  n (its endpoints), and the n endpoints' members of the active set

  Returns {created, skipped, f, f members, member, excess, ...}: the number of messages created and of those
  not created for a full backlog; the f endpoints (active-set members) found at their backlog; then each
  endpoint whose listing holds more than ARGV[3] messages while some of them are delivered or failed, with
  how many of those are beyond the count (trim-log.lua removes them).
]]
local now = tonumber(ARGV[1])
local retention = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local backlog = tonumber(ARGV[4])
local created = 0
local skipped = 0
local logs = {}
local members = {}
-- A queue found at its backlog stays there for the rest of the call (nothing here removes from a queue):
-- its endpoint's later messages of the page are skipped without asking Redis again.
local full = {}
local full_members = {}
local k = 3
local a = 5
while a <= #ARGV do
  local entry, id, event_type, order, body = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
  local endpoints = tonumber(ARGV[a + 5])
  local body_key
  local refs = 0
  if endpoints > 0 then
    body_key = KEYS[k + 1]
    k = k + 1
  end
  for i = 1, endpoints do
    local queue, message, listing, done = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4]
    local member = ARGV[a + 5 + i]
    k = k + 4
    if full[queue] then
      skipped = skipped + 1
    elseif redis.call('EXISTS', message) == 1 then
      -- fanned out before (a stale owner's second try): left as it is
    elseif redis.call('ZCARD', queue) >= backlog then
      full[queue] = true
      full_members[#full_members + 1] = member
      skipped = skipped + 1
    else
      redis.call('HSET', message, 'id', id, 'type', event_type, 'order', order,
        'status', 'pending', 'attempts', 0, 'tries', 0, 'next_at', now, 'created_at', now)
      redis.call('PEXPIRE', message, retention)
      redis.call('ZADD', queue, redis.call('INCR', KEYS[2]), id)
      redis.call('ZADD', listing, now, id)
      redis.call('SADD', KEYS[3], member)
      if not logs[member] then
        logs[member] = { listing, done }
        members[#members + 1] = member
      end
      refs = refs + 1
      created = created + 1
    end
  end
  if refs > 0 then
    redis.call('HSETNX', body_key, 'b', body)
    redis.call('HINCRBY', body_key, 'n', refs)
    redis.call('PEXPIRE', body_key, retention)
  end
  redis.call('XDEL', KEYS[1], entry)
  a = a + 6 + endpoints
end
local reply = { created, skipped, #full_members }
for _, member in ipairs(full_members) do
  reply[#reply + 1] = member
end
for _, member in ipairs(members) do
  local listing, done = logs[member][1], logs[member][2]
  -- Age: what was created before the retention is gone from the listings (its keys expire by themselves).
  redis.call('ZREMRANGEBYSCORE', listing, '-inf', now - retention)
  redis.call('ZREMRANGEBYSCORE', done, '-inf', now - retention)
  redis.call('PEXPIRE', listing, retention)
  local excess = math.min(redis.call('ZCARD', listing) - cap, redis.call('ZCARD', done))
  if excess > 0 then
    reply[#reply + 1] = member
    reply[#reply + 1] = excess
  end
end
return reply
