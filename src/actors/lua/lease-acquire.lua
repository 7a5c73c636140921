--[[
  Takes the shard lease when it is free, minting a new fencing token.

  KEYS[1] lease key   (value "<worker>:<token>", with a TTL)
  KEYS[2] fence key   (monotonic counter of tokens for this shard)
  ARGV[1] worker id
  ARGV[2] lease TTL in milliseconds

  Returns the new lease value, or false (null to the caller) when another worker holds the lease.
]]
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
local value = ARGV[1] .. ':' .. redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
return value
