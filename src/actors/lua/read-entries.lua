--[[
  Reads a shard's stream for its consumer group, only while the caller still holds the shard's lease. A
  plain XREADGROUP delivers entries to whoever sends it: a worker cut off from Redis past its lease may still
  have one in flight (or a reader connection that comes back before the connection its renewals use), and
  the entries it takes after another worker has taken the shard over, and claimed the pending entries of
  the consumers before it, would sit in its pending list where the new owner never looks. Checked here,
  in the same call, such a read takes nothing and tells its sender the lease is gone.

  KEYS[1] shard lease key
  KEYS[2] shard stream key
  KEYS[3] shard fence key (token counter)
  ARGV[1] expected lease value "<worker>:<token>"
  ARGV[2] consumer group
  ARGV[3] consumer (the worker id)
  ARGV[4] how many entries at most
  ARGV[5] "0" for the consumer's own pending entries, ">" for entries never delivered

  Returns -1 when the lease is lost; the entries read, as XREADGROUP gives them ({id, {field, value}}, or
  {id, false} for a pending entry deleted since); or, when ">" finds nothing new, the id of the stream's
  newest entry ("0-0" for an empty stream), after which the caller can wait for new entries with XREAD.
]]
-- @include "lease-held"
if not leaseHeld(KEYS[1], KEYS[3], ARGV[1]) then
  return -1
end
local reply = redis.call('XREADGROUP', 'GROUP', ARGV[2], ARGV[3], 'COUNT', ARGV[4], 'STREAMS', KEYS[2], ARGV[5])
if reply then
  return reply[1][2]
end
local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if newest[1] then
  return newest[1][1]
end
return '0-0'
