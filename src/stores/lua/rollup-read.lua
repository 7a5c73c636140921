--[[
  Reads one shard's insight rollups for GET /v1/insights as of one instant (src/stores/insight-store.ts):
  the two indexes, so the caller can tell whether the hashes it named are still all there are, and each
  day's hash. All in one msgpack blob, assembled here: each group's day is already msgpack
  (includes/rollup.lua of the actors), so it goes into the reply as it is stored, never decoded in Lua,
  wrapped as a msgpack bin: the client gets it as bytes to walk rather than as arrays it must build.

  KEYS[1] the shard's rollup index (keys.insightRollupDays)
  KEYS[2] the shard's moves (keys.insightRollupMoves)
  KEYS[3..] the day hashes to read (keys.insightRollupDay or keys.insightRollupMoving)
  ARGV[1], ARGV[2] the days' range [from, to) (ms)
  Returns msgpack [live members in range, all moves, [field, bin(group's day), ...] of KEYS[3], of KEYS[4], ...].
]]
local function arrayHeader(n)
  if n < 16 then
    return string.char(0x90 + n)
  elseif n < 65536 then
    return string.char(0xdc, math.floor(n / 256), n % 256)
  end
  return string.char(0xdd, math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end

-- A msgpack str header: fields are short, so this is cheaper than packing each field through cmsgpack.
local function strHeader(n)
  if n < 32 then
    return string.char(0xa0 + n)
  elseif n < 256 then
    return string.char(0xd9, n)
  elseif n < 65536 then
    return string.char(0xda, math.floor(n / 256), n % 256)
  end
  return string.char(0xdb, math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end

-- A msgpack bin header: a group's day goes through as bytes.
local function binHeader(n)
  if n < 256 then
    return string.char(0xc4, n)
  elseif n < 65536 then
    return string.char(0xc5, math.floor(n / 256), n % 256)
  end
  return string.char(0xc6, math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end

local parts = {
  arrayHeader(#KEYS),
  cmsgpack.pack(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '(' .. ARGV[2])),
  cmsgpack.pack(redis.call('ZRANGE', KEYS[2], 0, -1)),
}
for i = 3, #KEYS do
  local flat = redis.call('HGETALL', KEYS[i])
  local n = #parts
  parts[n + 1] = arrayHeader(#flat)
  n = n + 1
  for j = 1, #flat, 2 do
    local field, value = flat[j], flat[j + 1]
    parts[n + 1], parts[n + 2], parts[n + 3], parts[n + 4] = strHeader(#field), field, binHeader(#value), value
    n = n + 4
  end
end
return table.concat(parts)
