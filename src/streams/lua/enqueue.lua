--[[
  Appends events to one shard stream and claims their idempotency keys in the same step, so a key is
  claimed if and only if its event is in the stream. All keys carry the shard's {s<N>} tag.

  KEYS[1]  the shard stream
  KEYS[2..] idempotency hashes (one per outcome of the call that has keyed events), by index from ARGV
  ARGV[1]  backlog bound: when the stream already holds this many entries the whole call is refused
  ARGV[2]  stream entry field holding the packed envelope
  ARGV[3..] one triple per event, in send order:
           hash index into KEYS (0: the event has no idempotency key), idempotency key ("" if none), envelope

  Returns -1 when the backlog bound refused the call (nothing appended); otherwise a string with one
  character per event: "1" appended, "0" duplicate (its key already names an earlier entry; not appended).
]]
local stream = KEYS[1]
if redis.call('XLEN', stream) >= tonumber(ARGV[1]) then
  return -1
end

local field = ARGV[2]
local results = {}
local n = 0
for i = 3, #ARGV, 3 do
  n = n + 1
  local hashIndex = tonumber(ARGV[i])
  if hashIndex > 0 then
    local hash = KEYS[hashIndex]
    local idempotencyKey = ARGV[i + 1]
    if redis.call('HEXISTS', hash, idempotencyKey) == 1 then
      results[n] = '0'
    else
      local id = redis.call('XADD', stream, '*', field, ARGV[i + 2])
      redis.call('HSET', hash, idempotencyKey, id)
      results[n] = '1'
    end
  else
    redis.call('XADD', stream, '*', field, ARGV[i + 2])
    results[n] = '1'
  end
end
return table.concat(results)
