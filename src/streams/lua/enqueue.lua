--[[
  Appends the events of one group-commit call to a shard stream as ONE entry and claims their idempotency
  keys in the same step, so a key is claimed if and only if its event is in the stream. One entry per call
  (not per event) is what makes a busy shard cheap: one XADD, one delivery, one PEL entry and one XACK for
  all the events that arrived together. All keys carry the shard's {s<N>} tag.

  KEYS[1]  the shard stream
  KEYS[2..] idempotency hashes (one per outcome of the call that has keyed events), by index from ARGV
  ARGV[1]  backlog bound: when the stream already holds this many entries the whole call is refused
  ARGV[2]  stream entry field holding the events
  ARGV[3..] one triple per event, in send order:
           hash index into KEYS (0: the event has no idempotency key), idempotency key ("" if none), envelope

  The entry's value is a msgpack array of bin items, one packed envelope each, in send order (duplicates
  left out; no entry at all when every event was a duplicate).

  Returns -1 when the backlog bound refused the call (nothing appended); otherwise a string with one
  character per event: "1" appended, "0" duplicate (its key already names an earlier entry, or an earlier
  event of this call; not appended).
]]
local stream = KEYS[1]
if redis.call('XLEN', stream) >= tonumber(ARGV[1]) then
  return -1
end

-- msgpack headers: array of n items, bin of n bytes (the largest forms are never needed here but cost nothing).
local function arrayHeader(n)
  if n < 16 then return string.char(0x90 + n) end
  if n < 65536 then return string.char(0xdc, math.floor(n / 256), n % 256) end
  return string.char(0xdd, math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end
local function binHeader(n)
  if n < 256 then return string.char(0xc4, n) end
  if n < 65536 then return string.char(0xc5, math.floor(n / 256), n % 256) end
  return string.char(0xc6, math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end

-- parts[1] is the array header, known once the duplicates are out.
local parts = { '' }
local appended = 0
local claims = {}
local claimedHere = {}
local results = {}
local n = 0
for i = 3, #ARGV, 3 do
  n = n + 1
  local hashIndex = tonumber(ARGV[i])
  local duplicate = false
  if hashIndex > 0 then
    local hash = KEYS[hashIndex]
    local idempotencyKey = ARGV[i + 1]
    local seen = claimedHere[hash]
    if not seen then
      seen = {}
      claimedHere[hash] = seen
    end
    if seen[idempotencyKey] or redis.call('HEXISTS', hash, idempotencyKey) == 1 then
      duplicate = true
    else
      seen[idempotencyKey] = true
      claims[#claims + 1] = hash
      claims[#claims + 1] = idempotencyKey
    end
  end
  if duplicate then
    results[n] = '0'
  else
    local envelope = ARGV[i + 2]
    parts[#parts + 1] = binHeader(#envelope)
    parts[#parts + 1] = envelope
    appended = appended + 1
    results[n] = '1'
  end
end

if appended > 0 then
  parts[1] = arrayHeader(appended)
  local id = redis.call('XADD', stream, '*', ARGV[2], table.concat(parts))
  for c = 1, #claims, 2 do
    redis.call('HSET', claims[c], claims[c + 1], id)
  end
end
return table.concat(results)
