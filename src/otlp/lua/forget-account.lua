--[[
  Drops an account from the accounts the hold sweep visits, unless it held spans again since the sweep
  read its counter (the hold bumps it after holding).

  KEYS[1]  holding-accounts sorted set (account -> change counter)
  ARGV[1]  account id
  ARGV[2]  the counter the sweep read

  Returns 1 when dropped, 0 when the account held spans since.
]]
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
