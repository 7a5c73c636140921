--[[
  Sets an account's token generation and announces it in one step, so every node hears of a rotation
  exactly when it takes effect.

  KEYS[1] hash account id -> current token generation
  ARGV[1] account id
  ARGV[2] shard pub/sub channel (same slot as KEYS[1]) announcing "<account>:<generation>"
  ARGV[3] mode: "create" (set 1 if absent) or "rotate" (increment if present)

  Returns {generation, subscribers that received the announcement}, or {0, 0} when the mode's
  precondition failed (create: exists; rotate: unknown).
]]
local exists = redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1
local generation
if ARGV[3] == 'create' then
  if exists then return {0, 0} end
  redis.call('HSET', KEYS[1], ARGV[1], 1)
  generation = 1
else
  if not exists then return {0, 0} end
  generation = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
end
local subscribers = redis.call('SPUBLISH', ARGV[2], ARGV[1] .. ':' .. generation)
return {generation, subscribers}
