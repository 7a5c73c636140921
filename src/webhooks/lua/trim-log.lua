--[[
  Removes delivered or failed messages of one endpoint on a shard beyond the log's count: each one's
  listing entry, state, attempts, and its reference to the shared body (the body goes with the last). A
  message resent since it was chosen (pending again) stays.

  KEYS[1] the endpoint's listing index   KEYS[2] its delivered-or-failed index
  KEYS[3i] .. KEYS[3i + 2] message i's hash, attempts (list) and body, i from 1
  ARGV[i] message i's id

  Returns the number of messages removed.
]]
local removed = 0
for i = 1, #ARGV do
  local id = ARGV[i]
  local hash, attempts, body = KEYS[3 * i], KEYS[3 * i + 1], KEYS[3 * i + 2]
  if redis.call('ZREM', KEYS[2], id) == 1 then
    redis.call('ZREM', KEYS[1], id)
    -- A state that expired already took no reference away; its body expires by itself too.
    if redis.call('DEL', hash) == 1 and redis.call('HINCRBY', body, 'n', -1) <= 0 then
      redis.call('DEL', body)
    end
    redis.call('DEL', attempts)
    removed = removed + 1
  end
end
return removed
