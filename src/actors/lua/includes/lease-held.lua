-- Fencing: true while no other worker can have written this shard since this lease was granted. That is
-- the lease still holding exactly this owner and token, or the lease gone (expired under load) while the
-- fence counter still stands at this token: any takeover increments it, so nobody took the shard over.
local function leaseHeld(leaseKey, fenceKey, expected)
  local current = redis.call('GET', leaseKey)
  if current then
    return current == expected
  end
  local token = string.match(expected, ':(%d+)$')
  return token ~= nil and redis.call('GET', fenceKey) == token
end
