--[[
  Deletes one configuration record and unlists it. Outcomes copied what they need at creation, so open
  outcomes are unaffected.

  KEYS[1] record key
  KEYS[2] the account's index of records of that kind
  ARGV[1] record key (index member)

  Returns (named in record-store.ts, RECORD_REPLY) DELETED (1), or NONE (0) when there was none.
]]
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
