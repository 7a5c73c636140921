--[[
  Deletes a moved insight rollup from Redis once the archive has held it for the grace period
  (src/archive-move/rollup-mover.ts): reads that listed it as in the archive no longer need it in Redis.

  KEYS[1] the shard's moves (keys.insightRollupMoves)
  KEYS[2] the rollup's key during its move (keys.insightRollupMoving)
  ARGV[1] the move's member of KEYS[1]
  ARGV[2] archived before this instant (ms): a move copied later (or not yet, score -1) stays
]]
local copied = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if copied == nil or copied < 0 or copied >= tonumber(ARGV[2]) then
  return 0
end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
