--[[
  Creates or replaces one configuration record (task, agent, customer, rate card, webhook endpoint) and
  lists it. A new record is refused when the account already holds its quota of that kind; replacing one
  never is. Counted here, where it is written, so concurrent creations cannot pass the quota together.

  KEYS[1] record key
  KEYS[2] the account's index of records of that kind (sorted set, score 0, member = record key)
  ARGV[1] record JSON
  ARGV[2] record key (index member)
  ARGV[3] the account's quota of records of that kind

  Returns (named in record-store.ts, RECORD_REPLY) CREATED (1), REPLACED (0), or QUOTA_FULL (-1) when
  refused by the quota (nothing written).
]]
local existed = redis.call('EXISTS', KEYS[1])
if existed == 0 and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  return -1
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], 0, ARGV[2])
return 1 - existed
