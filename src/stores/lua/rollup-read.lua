--[[
  Reads one shard's insight rollups for GET /v1/insights as of one instant (src/stores/insight-store.ts):
  the two indexes, so the caller can tell whether the hashes it named are still all there are, and each
  hash's fields and values. All in one msgpack blob: the client decodes one reply, not two strings per field.

  KEYS[1] the shard's rollup index (keys.insightRollupHours)
  KEYS[2] the shard's moves (keys.insightRollupMoves)
  KEYS[3..] the rollup hashes to read (keys.insightRollup or keys.insightRollupMoving)
  ARGV[1], ARGV[2] the hours' range [from, to) (ms)
  Returns msgpack [live members in range, all moves, fields and values of KEYS[3], of KEYS[4], ...].
]]
local reply = {
  redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '(' .. ARGV[2]),
  redis.call('ZRANGE', KEYS[2], 0, -1),
}
for i = 3, #KEYS do
  reply[i] = redis.call('HGETALL', KEYS[i])
end
return cmsgpack.pack(reply)
