--[[
  Makes the shard's owner the holder of every entry its stream's consumer group delivered to another
  consumer and nobody acknowledged, then removes the consumers left with nothing pending. Run when an actor
  takes a shard over (the previous owners' batches that never committed), after a commit refused for such
  entries, and now and then while the shard is idle: a worker that lost the shard can still have a read on
  its way to Redis (held in TCP's retransmissions, or on a connection that comes back from a partition
  before the one its renewals use), and the entries that read takes would otherwise wait in its pending
  list, where nobody reads. Only while the caller holds the lease: a claim sent by an earlier owner that
  reaches Redis late must not take the current owner's pending entries away from it.

  KEYS[1] shard lease key
  KEYS[2] shard stream key
  KEYS[3] shard fence key (token counter)
  ARGV[1] expected lease value "<worker>:<token>"
  ARGV[2] consumer group
  ARGV[3] consumer (the worker id)

  Returns the number of entries claimed from other consumers, or LEASE_LOST (-1, src/actors/actor-scripts.ts)
  when the lease is lost.
]]
-- @include "lease-held"
-- @include "foreign-pending"
if not leaseHeld(KEYS[1], KEYS[3], ARGV[1]) then
  return -1
end
local claimed = 0
if foreignPending(KEYS[2], ARGV[2], ARGV[3]) then
  local cursor = '0-0'
  repeat
    local reply = redis.call('XAUTOCLAIM', KEYS[2], ARGV[2], ARGV[3], 0, cursor, 'COUNT', 1000, 'JUSTID')
    cursor = reply[1]
    claimed = claimed + #reply[2]
  until cursor == '0-0'
end
for _, fields in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[2], ARGV[2])) do
  local name, pending
  for i = 1, #fields, 2 do
    if fields[i] == 'name' then name = fields[i + 1] elseif fields[i] == 'pending' then pending = fields[i + 1] end
  end
  if name ~= ARGV[3] and pending == 0 then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[2], ARGV[2], name)
  end
end
return claimed
