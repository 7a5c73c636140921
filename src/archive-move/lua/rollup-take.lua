--[[
  Takes a page of insight rollups out of the live set for their move to the archive
  (src/archive-move/rollup-mover.ts): renames each hash to its move's key and lists the move as not yet copied,
  all at once, so a read sees the page either before or after. A commit that counts into one of these days
  afterwards starts a new live hash, which moves later under a move of its own.

  KEYS[1] the shard's rollup index (keys.insightRollupDays)
  KEYS[2] the shard's moves (keys.insightRollupMoves)
  KEYS[1 + 2i], KEYS[2 + 2i]  the i-th live rollup hash (keys.insightRollupDay) and its key during its move
                              (keys.insightRollupMoving)
  ARGV[2i - 1], ARGV[2i]      the i-th rollup's member of KEYS[1] and its move's member of KEYS[2]

  Returns how many were taken; a hash already gone (another worker took it during a shard handover) is not.
]]
local taken = 0
for i = 1, #ARGV / 2 do
  local live, moving = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  redis.call('ZREM', KEYS[1], ARGV[2 * i - 1])
  if redis.call('EXISTS', live) == 1 then
    redis.call('RENAME', live, moving)
    redis.call('ZADD', KEYS[2], -1, ARGV[2 * i])
    taken = taken + 1
  end
end
return taken
