-- True when entries of the stream are pending under a consumer other than `consumer` (the shard's owner):
-- delivered to a worker that lost the shard, by a read of its that reached Redis late. XPENDING's summary
-- lists each consumer with pending entries; a group has one or two consumers.
local function foreignPending(stream, group, consumer)
  local summary = redis.pcall('XPENDING', stream, group)
  -- No stream or no group: nothing was delivered through it, so nobody holds anything.
  if summary.err then
    return false
  end
  local consumers = summary[4]
  if not consumers then
    return false
  end
  for _, pending in ipairs(consumers) do
    if pending[1] ~= consumer then
      return true
    end
  end
  return false
end
