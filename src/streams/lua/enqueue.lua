--[[
  Appends the events of one group-commit call to a shard stream as ONE entry and claims their idempotency
  keys in the same step, so a key is claimed if and only if its event is in the stream. One entry per call
  (not per event) is what makes a busy shard cheap: one XADD, one delivery, one PEL entry and one XACK for
  all the events that arrived together. All keys carry the shard's {s<N>} tag.

  KEYS[1]  the shard stream
  KEYS[2..] idempotency hashes (one per outcome of the call that has keyed events), by index from ARGV
  ARGV[1]  backlog bound: when the stream already holds this many entries the whole call is refused
  ARGV[2]  stream entry field holding the events
  ARGV[3..] triples in send order, each with its events framed as msgpack bin items (stream-entry.ts):
           0, n, the framed bytes of n events without idempotency keys (appended as they are)
           k, idempotency key, one framed event whose key is claimed in KEYS[k]

  The entry's value is a msgpack array of those bin items (duplicates left out; no entry at all when
  every event was a duplicate). Claims are made (HSETNX, value '1') as the events are read, before the
  XADD; should the XADD fail, they are deleted again before the error is returned.

  Returns BACKLOG_FULL (-1, named in enqueue.ts) when the backlog bound refused the call (nothing appended); otherwise a string with one
  character per event: "1" appended, "0" duplicate (its key was claimed by an earlier call, or by an earlier
  event of this call; not appended).
]]
local stream = KEYS[1]
if redis.call('XLEN', stream) >= tonumber(ARGV[1]) then
  return -1
end

-- parts[1] is the msgpack array header, known once the duplicates are out.
local parts = { '' }
local appended = 0
local claims = {}
local results = {}
for i = 3, #ARGV, 3 do
  local hashIndex = tonumber(ARGV[i])
  if hashIndex == 0 then
    local n = tonumber(ARGV[i + 1])
    parts[#parts + 1] = ARGV[i + 2]
    appended = appended + n
    results[#results + 1] = string.rep('1', n)
  else
    -- One command claims or finds the key, and a second event of this call with the same key finds the
    -- claim the first one made. The value is not read by anything: the key's presence is the claim.
    local hash = KEYS[hashIndex]
    local idempotencyKey = ARGV[i + 1]
    if redis.call('HSETNX', hash, idempotencyKey, '1') == 0 then
      results[#results + 1] = '0'
    else
      claims[#claims + 1] = hash
      claims[#claims + 1] = idempotencyKey
      parts[#parts + 1] = ARGV[i + 2]
      appended = appended + 1
      results[#results + 1] = '1'
    end
  end
end

if appended > 0 then
  if appended < 16 then
    parts[1] = string.char(0x90 + appended)
  elseif appended < 65536 then
    parts[1] = string.char(0xdc, math.floor(appended / 256), appended % 256)
  else
    parts[1] = string.char(0xdd, math.floor(appended / 16777216) % 256, math.floor(appended / 65536) % 256, math.floor(appended / 256) % 256, appended % 256)
  end
  local added = redis.pcall('XADD', stream, '*', ARGV[2], table.concat(parts))
  if type(added) == 'table' and added.err then
    -- A key is claimed if and only if its event is in the stream: without the entry, no claim stays.
    for c = 1, #claims, 2 do
      redis.call('HDEL', claims[c], claims[c + 1])
    end
    return redis.error_reply(added.err)
  end
end
return table.concat(results)
