-- Fencing: true when the shard lease still holds exactly this owner and token. Every state write checks it,
-- so a worker that lost its lease (paused, partitioned, presumed dead) can no longer write.
local function leaseHeld(leaseKey, expected)
  return redis.call('GET', leaseKey) == expected
end
