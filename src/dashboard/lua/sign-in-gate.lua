--[[
  Lets one sign-in attempt for an email go ahead, or says how long to wait: the first few attempts since
  the last successful sign-in go at once, then each must come a growing delay after the one before. The
  attempt is counted (and the next delay set) before its password is checked, so attempts sent together
  cannot all slip through one opening; a success deletes the key.

  KEYS[1] the email's limiter hash: attempts, next_at (ms)
  ARGV[1] now, ms
  ARGV[2] attempts that go at once
  ARGV[3] the first delay, ms (doubling with each attempt after)
  ARGV[4] the longest delay, ms
  ARGV[5] ms without an attempt after which the email is forgotten

  Returns 0 when the attempt may go ahead, else the ms to wait.
]]
local now = tonumber(ARGV[1])
local next_at = tonumber(redis.call('HGET', KEYS[1], 'next_at') or '0')
if now < next_at then return next_at - now end
local attempts = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
local free = tonumber(ARGV[2])
if attempts >= free then
  local delay = math.min(tonumber(ARGV[3]) * 2 ^ (attempts - free), tonumber(ARGV[4]))
  redis.call('HSET', KEYS[1], 'next_at', math.floor(now + delay))
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 0
