--[[
  Gives the shard lease up, only if this exact lease still holds it.

  KEYS[1] lease key
  KEYS[2] fence key
  ARGV[1] expected lease value "<worker>:<token>"

  Returns (named in src/actors/actor-scripts.ts, LEASE_REPLY): HELD (1) when released, NOT_HELD (0) when
  it was no longer ours.
]]
-- @include "lease-held"
if leaseHeld(KEYS[1], KEYS[2], ARGV[1]) then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
