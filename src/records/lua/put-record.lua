--[[
  Creates or replaces one configuration record (task, agent, customer, rate card) and lists it.

  KEYS[1] record key
  KEYS[2] the account's index of records of that kind (sorted set, score 0, member = record key)
  ARGV[1] record JSON
  ARGV[2] record key (index member)

  Returns 1 when created, 0 when replaced.
]]
local existed = redis.call('EXISTS', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], 0, ARGV[2])
return 1 - existed
