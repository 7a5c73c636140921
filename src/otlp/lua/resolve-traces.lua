--[[
  Resolves the traces of one OTLP request against what earlier requests left (all keys in the account's
  {a:<account>} slot): a trace whose spans name its outcome records its keys for later spans and gets back
  the spans held for it; a trace that names none takes the keys recorded earlier, or has its spans held.
  Held spans are handed back but not deleted here: release-traces.lua deletes them once their events are
  enqueued, so a crash in between loses nothing (their idempotency keys make a second enqueue harmless).

  KEYS[1]  held-traces sorted set (trace id -> hold deadline, ms)
  KEYS[2]  held-count counter
  KEYS[3..] per trace, in ARGV order: its trace-keys string, then its held-spans list
  ARGV[1]  now (ms)
  ARGV[2]  hold (ms)
  ARGV[3]  most spans the account may hold
  ARGV[4]  how long trace keys are kept (ms)
  ARGV[5..] per trace: its trace id, its packed keys ("" when this request does not name the outcome),
           n, then n packed spans to hold when no keys are known

  Returns per trace either a status code or, when the caller must read something back, a pair:
    1  known, as the caller packed them, and nothing held for the trace (the common reply: nothing to decode)
    2  held: the spans wait for their trace's keys
    3  full: unknown, and holding the spans would pass the bound
    { packed keys, list of spans held for the trace }  known: recorded earlier than this call, or spans held
]]
local now = tonumber(ARGV[1])
local hold = tonumber(ARGV[2])
local max_held = tonumber(ARGV[3])
local keys_ttl = tonumber(ARGV[4])
local held_count = tonumber(redis.call('GET', KEYS[2]) or '0')
local replies = {}
local a = 5
local k = 3
while a <= #ARGV do
  local trace_id, packed, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  local keys_key, held_key = KEYS[k], KEYS[k + 1]
  local stored = redis.call('GET', keys_key)
  if not stored and packed ~= '' then
    redis.call('SET', keys_key, packed, 'PX', keys_ttl)
    stored = packed
  elseif stored then
    redis.call('PEXPIRE', keys_key, keys_ttl)
  end
  if stored then
    local held = redis.call('LRANGE', held_key, 0, -1)
    if stored == packed and #held == 0 then
      replies[#replies + 1] = 1
    else
      replies[#replies + 1] = { stored, held }
    end
  elseif held_count + n > max_held then
    replies[#replies + 1] = 3
  else
    for i = 1, n do
      redis.call('RPUSH', held_key, ARGV[a + 2 + i])
    end
    -- Kept past the deadline: the sweep, not expiry, ends a hold, so it is counted and logged.
    redis.call('PEXPIRE', held_key, hold * 2 + 600000)
    redis.call('ZADD', KEYS[1], 'NX', now + hold, trace_id)
    held_count = held_count + n
    redis.call('INCRBY', KEYS[2], n)
    replies[#replies + 1] = 2
  end
  a = a + 3 + n
  k = k + 2
end
return replies
