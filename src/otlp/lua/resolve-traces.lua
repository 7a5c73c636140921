--[[
  Resolves the traces of one OTLP request against what earlier requests left (all keys in the account's
  {a:<account>} slot): a trace whose spans name its outcome records its keys for later spans; a trace that
  names none takes the keys recorded earlier, or has its spans held. Spans held for a trace whose keys are
  known are not read here: the reply says so, and the caller reads the trace's held list (no span can join
  it once its keys are recorded) and deletes it with release-traces.lua once their events are enqueued, so
  a crash in between loses nothing (their idempotency keys make a second enqueue harmless).

  Trace keys live in one hash per period of ARGV[4] ms, trace id -> packed keys (packTraceKeys: equal keys are equal strings), read and written with one
  command each for the whole request (a key per trace cost three commands per trace). A trace's keys are
  looked up in the current period, then the one before, from which they move forward, so keys are kept
  between one and two periods after their last use.

  KEYS[1]  held-traces sorted set (trace id -> hold deadline, ms)
  KEYS[2]  held-count counter
  KEYS[3]  trace-keys hash of the current period
  KEYS[4]  trace-keys hash of the period before
  KEYS[5]  trace-keys hash of the period before that: unlinked when the current one starts, so Redis frees
           it off its main thread (its expiry would free a large hash inline)
  KEYS[6..] the held-spans list of each trace whose ARGV keys are "", in ARGV order
  ARGV[1]  now (ms)
  ARGV[2]  hold (ms)
  ARGV[3]  most spans the account may hold
  ARGV[4]  period of the trace-keys hashes (ms)
  ARGV[5..] per trace: its trace id and its packed keys; or, when this request does not name the outcome,
           its trace id, "", n, then n packed spans to hold when no keys are known (a keyed trace has no
           count: one argument fewer per trace of a request, the common case)

  At most 2048 traces (the spans cap of a request), well within what unpack() may spread.
  Returns per trace either a status code or, when the caller must read something back, a pair:
    1  known, as the caller packed them, and nothing held for the trace (the common reply: nothing to decode)
    2  held: the spans wait for their trace's keys
    3  full: unknown, and holding the spans would pass the bound
    { packed keys, waiting }  known (recorded earlier than this call, or as asked with spans held); waiting
       1 when spans are held for the trace: the caller reads its held-spans list
]]
local now = tonumber(ARGV[1])
local hold = tonumber(ARGV[2])
local max_held = tonumber(ARGV[3])
local period = tonumber(ARGV[4])
local held_count = tonumber(redis.call('GET', KEYS[2]) or '0')

local ids, packs, firsts = {}, {}, {}
local a = 5
while a <= #ARGV do
  local i = #ids + 1
  ids[i], packs[i] = ARGV[a], ARGV[a + 1]
  if packs[i] == '' then
    firsts[i] = a + 3
    a = a + 3 + tonumber(ARGV[a + 2])
  else
    a = a + 2
  end
end

local current = redis.call('HMGET', KEYS[3], unpack(ids))
local stored = {}
local missing, missing_ids = {}, {}
for i = 1, #ids do
  if current[i] then
    stored[i] = current[i]
  else
    missing[#missing + 1] = i
    missing_ids[#missing_ids + 1] = ids[i]
  end
end
if #missing > 0 and redis.call('EXISTS', KEYS[4]) == 1 then
  local before = redis.call('HMGET', KEYS[4], unpack(missing_ids))
  for j, i in ipairs(missing) do
    if before[j] then stored[i] = before[j] end
  end
end

-- Only while the account holds spans can a trace have any waiting.
local waiting = {}
if held_count > 0 then
  local deadlines = redis.call('ZMSCORE', KEYS[1], unpack(ids))
  for i = 1, #ids do
    waiting[i] = deadlines[i] ~= false
  end
end

local writes = {}
local replies = {}
local k = 6
for i = 1, #ids do
  local packed = packs[i]
  local held_key
  if packed == '' then
    held_key = KEYS[k]
    k = k + 1
  end
  local keys = stored[i]
  if not keys and packed ~= '' then keys = packed end
  if keys and not current[i] then
    writes[#writes + 1] = ids[i]
    writes[#writes + 1] = keys
  end
  if keys then
    if keys == packed and not waiting[i] then
      replies[i] = 1
    else
      replies[i] = { keys, waiting[i] and 1 or 0 }
    end
  else
    local n = tonumber(ARGV[firsts[i] - 1])
    if held_count + n > max_held then
      replies[i] = 3
    else
      for s = firsts[i], firsts[i] + n - 1 do
        redis.call('RPUSH', held_key, ARGV[s])
      end
      -- Kept past the deadline: the sweep, not expiry, ends a hold, so it is counted and logged.
      redis.call('PEXPIRE', held_key, hold * 2 + 600000)
      redis.call('ZADD', KEYS[1], 'NX', now + hold, ids[i])
      held_count = held_count + n
      redis.call('INCRBY', KEYS[2], n)
      replies[i] = 2
    end
  end
end

if #writes > 0 then
  if redis.call('EXISTS', KEYS[3]) == 0 then redis.call('UNLINK', KEYS[5]) end
  redis.call('HSET', KEYS[3], unpack(writes))
  -- Two periods from the last write: the hash is read as the period before until the next one ends.
  redis.call('PEXPIRE', KEYS[3], period * 2)
end
return replies
