--[[
  Commits the effect of one batch of a shard atomically: outcome snapshots, event log entries, due-time
  index, outcome index, dead letters, charges, and the XACK of the stream entries they came from. Either
  all of it happens or none: preconditions are checked before the first write.

  KEYS[1] shard lease key (fencing)
  KEYS[2] shard stream key
  KEYS[3] shard due-time index (sorted set)
  KEYS[4] shard fence key (token counter)
  KEYS[5] the id of the shard's last commit
  KEYS[6..] keys named by the operations, by index into KEYS
  ARGV[1] expected lease value "<worker>:<token>"
  ARGV[2] consumer group
  ARGV[3] operations, msgpack array of arrays (b is a blob, a str of any bytes):
          {"set", k, b}            SET KEYS[k] b
          {"create", k, b, h}      like set, but KEYS[k] must not exist (precondition); PERSIST KEYS[h], the
                                   new outcome's idempotency hash (it may carry an orphan's expiry)
          {"log", k, b}            XADD KEYS[k] * e b                 (outcome event log)
          {"zadd", k, nx, {score, m, ...}}  ZADD KEYS[k] [NX] score m ...  (due-time index, settled
                                   outcomes awaiting the archive; with nx 1 the lexical indexes)
          {"zrem", k, {m, ...}}    ZREM KEYS[k] m ...
          {"append", k, b}         XADD KEYS[k] * d b                 (dead letters, charges)
          {"follow", k, b}         XADD KEYS[k] * d b p <id of the last append, or "">
                                   (charge archive queue: the entry names the one that caused it)
          {"notify", k, h, t, s, account}  like follow with h .. the thing (the webhook outbox: a
                                   notification's header, then the thing it notifies of: t is the blob, or
                                   the number of the operation whose third field it is), but only when
                                   KEYS[s], the shard's set of accounts with webhook endpoints, holds the
                                   account, or does not hold "*" yet (not known complete)
          {"notify-verdicts", k, s, account, prefix, {i, ...}}  for each i, like notify with the header
                                   prefix .. the bin header of the snapshot of operation i (a set or create)
                                   and that snapshot: an account's verdict notifications in one operation
          {"expire-orphan", h, o, ms}  PEXPIRE KEYS[h] ms unless KEYS[o] (the outcome) exists
          {"count", k, f, n[, ms]} HINCRBY KEYS[k] f n, then PEXPIRE KEYS[k] ms when given
                                   (billable usage; events received per minute)
          {"model", k, counts, sums, ms}  each {field, n, ...}: HINCRBY KEYS[k] per count, HINCRBYFLOAT
                                   per sum, then PEXPIRE KEYS[k] ms (score models)
          {"open-quota", k, f, n, limit}  HINCRBY KEYS[k] f n; precondition: the field plus n is at most
                                   limit (an account's open outcomes on the shard, n > 0)
          {"rollup", k, x, m, day, entries}  entries {{group field, hour of day, {metric, n, ...},
                                   {clause id, text, ...}}, ...}: added to each group's day in KEYS[k],
                                   ZADD KEYS[x] day m (insight rollups, includes/rollup.lua)
  ARGV[4] stream entry ids to acknowledge, msgpack array
  ARGV[5] this commit's id: a commit whose id is already recorded in KEYS[5] ran before (the same call
          sent twice) and returns 1 without writing anything again

  Returns (named in src/actors/actor-scripts.ts, COMMIT_REPLY):
  COMMITTED (1)        committed
  LEASE_LOST (-1)      the lease is lost
  REFUSED_OP (-2) - i  create operation i found its key taken, or open-quota operation i found no room
  FOREIGN_PENDING (0)  stream entries are pending under another consumer (see foreign-pending): applied
                       after this batch, their events would be applied out of order, so nothing is written
                       until the owner has claimed them (claim-orphans.lua) and read its pending entries again
]]
-- @include "lease-held"
-- @include "foreign-pending"
-- @include "rollup"
if not leaseHeld(KEYS[1], KEYS[4], ARGV[1]) then
  return -1
end
if redis.call('GET', KEYS[5]) == ARGV[5] then
  return 1
end
if foreignPending(KEYS[2], ARGV[2], string.match(ARGV[1], '^(.*):%d+$')) then
  return 0
end

local ops = cmsgpack.unpack(ARGV[3])
local acks = cmsgpack.unpack(ARGV[4])

for i, op in ipairs(ops) do
  if op[1] == 'create' and redis.call('EXISTS', KEYS[op[2]]) == 1 then
    return -2 - i
  end
  if op[1] == 'open-quota' and (tonumber(redis.call('HGET', KEYS[op[2]], op[3])) or 0) + op[4] > op[5] then
    return -2 - i
  end
end

-- Snapshots are written with one MSET per run of them: a storm's commit writes hundreds, and a call each
-- was much of the script's time. Written before anything that reads an outcome's key.
local sets = {}
local function writeSets()
  -- In slices: unpack() of more than about 8,000 values overflows Lua's C stack.
  for i = 1, #sets, 1000 do
    redis.call('MSET', unpack(sets, i, math.min(i + 999, #sets)))
  end
  sets = {}
end

-- Whether an account gets notifications, asked of Redis once per account and set in this commit (the
-- script does not change the sets).
local notified = {}
local function notifies(s, account)
  local accounts = notified[s]
  if not accounts then
    accounts = {}
    notified[s] = accounts
  end
  local yes = accounts[account]
  if yes == nil then
    yes = redis.call('SISMEMBER', KEYS[s], account) == 1 or redis.call('SISMEMBER', KEYS[s], '*') == 0
    accounts[account] = yes
  end
  return yes
end

-- msgpack's bin header of a value of n bytes: what a notification puts before the snapshot it carries.
local function binHeader(n)
  if n < 0x100 then
    return string.char(0xc4, n)
  elseif n < 0x10000 then
    return string.char(0xc5, math.floor(n / 0x100), n % 0x100)
  end
  local b = math.floor
  return string.char(0xc6, b(n / 0x1000000), b(n / 0x10000) % 0x100, b(n / 0x100) % 0x100, n % 0x100)
end

local appended = ''
for _, op in ipairs(ops) do
  local kind = op[1]
  if kind == 'set' or kind == 'create' then
    sets[#sets + 1] = KEYS[op[2]]
    sets[#sets + 1] = op[3]
    if kind == 'create' then
      redis.call('PERSIST', KEYS[op[4]])
    end
  elseif kind == 'log' then
    redis.call('XADD', KEYS[op[2]], '*', 'e', op[3])
  elseif kind == 'zadd' then
    if op[3] == 1 then
      redis.call('ZADD', KEYS[op[2]], 'NX', unpack(op[4]))
    else
      redis.call('ZADD', KEYS[op[2]], unpack(op[4]))
    end
  elseif kind == 'zrem' then
    redis.call('ZREM', KEYS[op[2]], unpack(op[3]))
  elseif kind == 'append' then
    appended = redis.call('XADD', KEYS[op[2]], '*', 'd', op[3])
  elseif kind == 'follow' then
    redis.call('XADD', KEYS[op[2]], '*', 'd', op[3], 'p', appended)
  elseif kind == 'notify' then
    if notifies(op[5], op[6]) then
      local thing = op[4]
      if type(thing) == 'number' then
        thing = ops[thing][3]
      end
      redis.call('XADD', KEYS[op[2]], '*', 'd', op[3] .. thing, 'p', appended)
    end
  elseif kind == 'notify-verdicts' then
    if notifies(op[3], op[4]) then
      for _, carrier in ipairs(op[6]) do
        local snapshot = ops[carrier][3]
        redis.call('XADD', KEYS[op[2]], '*', 'd', op[5] .. binHeader(#snapshot) .. snapshot, 'p', appended)
      end
    end
  elseif kind == 'expire-orphan' then
    writeSets()
    if redis.call('EXISTS', KEYS[op[3]]) == 0 then
      redis.call('PEXPIRE', KEYS[op[2]], op[4])
    end
  elseif kind == 'open-quota' then
    redis.call('HINCRBY', KEYS[op[2]], op[3], op[4])
  elseif kind == 'count' then
    redis.call('HINCRBY', KEYS[op[2]], op[3], op[4])
    if op[5] then
      redis.call('PEXPIRE', KEYS[op[2]], op[5])
    end
  elseif kind == 'rollup' then
    addRollup(KEYS[op[2]], KEYS[op[3]], op[4], op[5], op[6])
  elseif kind == 'model' then
    local counts, sums = op[3], op[4]
    for j = 1, #counts, 2 do
      redis.call('HINCRBY', KEYS[op[2]], counts[j], counts[j + 1])
    end
    for j = 1, #sums, 2 do
      -- Lua would format a float with 14 digits; %.17g keeps every bit of the sum.
      redis.call('HINCRBYFLOAT', KEYS[op[2]], sums[j], string.format('%.17g', sums[j + 1]))
    end
    redis.call('PEXPIRE', KEYS[op[2]], op[5])
  end
end
writeSets()

if #acks > 0 then
  -- In slices: unpack() of more than about 8,000 values overflows Lua's C stack (VERDICT_READ_BATCH_SIZE
  -- and VERDICT_READ_BATCH_MAX may allow reads that large).
  for i = 1, #acks, 1000 do
    redis.call('XACK', KEYS[2], ARGV[2], unpack(acks, i, math.min(i + 999, #acks)))
  end
  -- Trim what every committed snapshot has applied: entries before the oldest still pending, or, with
  -- nothing pending, before the last delivered one.
  local pending = redis.call('XPENDING', KEYS[2], ARGV[2])
  local floor = pending[2]
  if not floor then
    for _, group in ipairs(redis.call('XINFO', 'GROUPS', KEYS[2])) do
      for j = 1, #group, 2 do
        if group[j] == 'name' and group[j + 1] == ARGV[2] then
          for f = 1, #group, 2 do
            if group[f] == 'last-delivered-id' then floor = group[f + 1] end
          end
        end
      end
    end
  end
  if floor then
    redis.call('XTRIM', KEYS[2], 'MINID', floor)
  end
end
redis.call('SET', KEYS[5], ARGV[5])
return 1
