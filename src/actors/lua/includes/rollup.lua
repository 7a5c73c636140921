-- Insight rollups (docs/insights.md): adds a commit's counters to one account's hour on the shard, sets the
-- texts of the clauses they name, and keeps the hour in the shard's index of rollups (which the archive
-- mover reads).
local function addRollup(hashKey, indexKey, member, hour, counts, texts)
  for j = 1, #counts, 2 do
    redis.call('HINCRBY', hashKey, counts[j], counts[j + 1])
  end
  for j = 1, #texts, 2 do
    redis.call('HSET', hashKey, texts[j], texts[j + 1])
  end
  redis.call('ZADD', indexKey, hour, member)
end
