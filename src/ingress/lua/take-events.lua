--[[
  Takes events from an account's token bucket for the requests of one event-loop turn of one ingress
  process, in arrival order. The bucket is shared by every ingress process and refills continuously at
  the account's rate up to its size; Redis's own clock (TIME) times it, so processes' clocks never matter.

  KEYS[1] the account's event bucket (hash: t = tokens left, at = ms of the last refill)
  ARGV[1] refill rate, events per second
  ARGV[2] bucket size (the burst an idle account may send at once)
  ARGV[3..] events each request asks for

  Returns, per request, the events granted (0 to what it asked): always the first ones of the request;
  then, as a string (a Lua number would be cut to an integer), the tokens left in the bucket.
]]
local rate = tonumber(ARGV[1])
local size = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = size
  at = now
end
-- A clock that stepped back (a failover to a replica behind) refills nothing until it passes `at` again.
if now > at then
  tokens = math.min(size, tokens + (now - at) * rate / 1000)
  at = now
end
local granted = {}
for i = 3, #ARGV do
  local n = math.min(tonumber(ARGV[i]), math.floor(tokens))
  tokens = tokens - n
  granted[#granted + 1] = n
end
redis.call('HSET', KEYS[1], 't', string.format('%.6f', tokens), 'at', at)
-- Once it would be full again the bucket says nothing a missing one does not.
redis.call('PEXPIRE', KEYS[1], math.ceil(size * 1000 / rate) + 1000)
granted[#granted + 1] = string.format('%.6f', tokens)
return granted
