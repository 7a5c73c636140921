--[[
  Ends holds: deletes held spans that were enqueued (their trace's keys became known) or whose hold
  expired. All keys in the account's {a:<account>} slot.

  KEYS[1]  held-traces sorted set
  KEYS[2]  held-count counter
  KEYS[3..] held-spans lists, one per ARGV trace
  ARGV[1]  "released" (end the holds whatever their deadline) or a time in ms (end only those due by then)
  ARGV[2..] trace ids

  Returns per trace the number of spans its hold ended with (0 when not due, or nothing was held).
]]
local due_by = tonumber(ARGV[1])
local ended = {}
local total = 0
for i = 2, #ARGV do
  local trace_id, held_key = ARGV[i], KEYS[i + 1]
  local deadline = tonumber(redis.call('ZSCORE', KEYS[1], trace_id) or '0')
  local n = 0
  if due_by == nil or (deadline > 0 and deadline <= due_by) then
    n = redis.call('LLEN', held_key)
    redis.call('DEL', held_key)
    redis.call('ZREM', KEYS[1], trace_id)
  end
  total = total + n
  ended[#ended + 1] = n
end
if total > 0 and redis.call('DECRBY', KEYS[2], total) <= 0 then
  redis.call('DEL', KEYS[2])
end
return ended
