-- Insight rollups (docs/insights.md): adds a commit's counts to one account's day on the shard and keeps the
-- day in the shard's index of rollups (which the archive mover reads). The day's hash holds one field per
-- group (task, agent or customer): a msgpack array of triples {hour of the day, metric, count}, and
-- {-1, "T" .. clause id, text} for the texts of the clauses counted. One value per group and day, so a read
-- gets 30 days of a group in 30 values, not a field per count.
local function addRollup(hashKey, indexKey, member, day, entries)
  for _, entry in ipairs(entries) do
    local field, hour, counts, texts = entry[1], entry[2], entry[3], entry[4]
    local stored = redis.call('HGET', hashKey, field)
    local cells = stored and cmsgpack.unpack(stored) or {}
    -- Where each metric of this hour, and each text, already is: its value's index.
    local at = {}
    for j = 1, #cells, 3 do
      if cells[j] == hour or cells[j] == -1 then
        at[cells[j + 1]] = j + 2
      end
    end
    for j = 1, #counts, 2 do
      local slot = at[counts[j]]
      if slot then
        cells[slot] = cells[slot] + counts[j + 1]
      else
        local n = #cells
        cells[n + 1], cells[n + 2], cells[n + 3] = hour, counts[j], counts[j + 1]
      end
    end
    for j = 1, #texts, 2 do
      local slot = at['T' .. texts[j]]
      if slot then
        cells[slot] = texts[j + 1]
      else
        local n = #cells
        cells[n + 1], cells[n + 2], cells[n + 3] = -1, 'T' .. texts[j], texts[j + 1]
      end
    end
    redis.call('HSET', hashKey, field, cmsgpack.pack(cells))
  end
  redis.call('ZADD', indexKey, day, member)
end
