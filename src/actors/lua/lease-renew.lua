--[[
  Extends the shard lease while it is still this worker's: held with this token, or expired with nobody
  having taken the shard since (then it is set again). A renewal delayed under load is not a lost shard.

  KEYS[1] lease key
  KEYS[2] fence key (token counter of the shard)
  ARGV[1] expected lease value "<worker>:<token>"
  ARGV[2] lease TTL in milliseconds

  Returns (named in src/actors/actor-scripts.ts, LEASE_REPLY): HELD (1) when renewed, NOT_HELD (0) when
  another worker took the shard.
]]
-- @include "lease-held"
if leaseHeld(KEYS[1], KEYS[2], ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
