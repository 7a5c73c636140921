--[[
  Extends the shard lease if this exact lease (owner and token) still holds it.

  KEYS[1] lease key
  ARGV[1] expected lease value "<worker>:<token>"
  ARGV[2] lease TTL in milliseconds

  Returns 1 when renewed, 0 when the lease was lost.
]]
-- @include "lease-held"
if leaseHeld(KEYS[1], ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
