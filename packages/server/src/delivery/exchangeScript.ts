/**
 * One process's exchange with the shared counters in Redis, atomic (one Lua script): the same rules
 * as `MemoryCounterStore` in sharedCounters.ts, which is the readable version; keep the two in step.
 *
 * KEYS[1]  the live processes (zset pid -> last exchange)
 * KEYS[2]  the generation of the data: made by the first exchange that finds it missing (a new
 *   Redis, or one that lost its data: restarted without persistence, or flushed)
 * then per budget 6 keys: spent, lease amounts (hash pid -> amount), lease expiries (hash pid ->
 *   ms), pacing bucket (hash t, at), spend per hour (hash hour -> spend), restored base (the spend
 *   from before the data was lost that the count holds: sent back by processes, or raised to by the
 *   stats store's counts); and a 7th when the budget sends
 *   back its spend per hour (below): the restored base per hour (hash hour -> the most seen)
 * then per frequency count 1 key (hash n, e, b: the count restored from before the data was lost)
 * then per QPS limit 2 keys: demands (hash pid -> requests/s), expiries (hash pid -> ms)
 *
 * ARGV: pid, now, lease ttl, #budgets, #frequencies, #qps, pacing burst ms, catch-up multiple,
 *   qps demand ttl, catch-up ms; then per budget: limit, want, min, used, floor, floor's generation, even rate
 *   (over the pace window, computed by the caller), pace start (the window [pace start, day end):
 *   the day, or from the campaign's creation on its first day; pacing.ts paceWindow), day end, hour,
 *   ttl, the reservations held (the lease is never less), the number n of hours sent back (0 nearly always) and, when n > 0, their generation and n
 *   pairs hour, spend seen; per frequency: incr, period, floor, floor's window end, floor's
 *   generation; per QPS: limit, demand.
 *
 * A budget's count after a loss is its base (the spend from before the loss it holds) plus what was
 * counted after. A floor of another generation was seen before the data was lost: it raises the
 * base to itself, and the count by as much (whichever process's exchange comes first after the
 * loss). A floor of the current generation (or of none: '', the stats store's counts) raises the
 * count to it, never lowers it; what it raises the count by joins the base, since the stats store's
 * count is of the same spend a process sends back (it may also hold spend counted after the loss,
 * so it is taken as the whole count, not as a base). So the base is the most of what processes sent
 * back and of the stats store's counts less what was counted after the loss when they came: a
 * count sent back after the stats store's raise adds only what it is beyond it, never the two
 * summed. The day's spend per hour sent back is raised hour by hour (the base per hour), as the
 * spend from before the loss is.
 *
 * Numbers go to Redis as call arguments (never concatenated into strings), so amounts beyond 14
 * digits keep their precision. Times are the caller's clock (so a test's simulated clock works);
 * Redis expiries (PEXPIRE) only clean up.
 *
 * Returns { processes, { {granted, spent, others, paced, hourNow, hourBefore}... },
 *   { {count, windowEnd}... }, { {share x 1000, processes}... }, generation }.
 */
export const EXCHANGE_SCRIPT = `
local pid = ARGV[1]
local now = tonumber(ARGV[2])
local leaseTtl = tonumber(ARGV[3])
local nb, nf, nq = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local burst, catchUp, qpsTtl, catchUpMs = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local k, a = 3, 11
local DAY = 86400000

local function num(v) return tonumber(v) or 0 end
local function hash(key)
  local flat = redis.call('HGETALL', key)
  local t = {}
  for j = 1, #flat, 2 do t[flat[j]] = flat[j + 1] end
  return t
end

local gen = redis.call('GET', KEYS[2])
if not gen then
  gen = pid .. '@' .. ARGV[2]
  redis.call('SET', KEYS[2], gen)
end
redis.call('ZADD', KEYS[1], now, pid)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. tostring(now - leaseTtl))
redis.call('PEXPIRE', KEYS[1], DAY)
local processes = redis.call('ZCARD', KEYS[1])

local budgets = {}
for i = 1, nb do
  local spentK, amountK, expiryK, paceK, hourK, baseK = KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5]
  local limit, want, minG, used, floor, floorGen = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), ARGV[a + 5]
  local even, paceStart, dayEnd, hour, ttl, reserved, nh = tonumber(ARGV[a + 6]), tonumber(ARGV[a + 7]), tonumber(ARGV[a + 8]), tonumber(ARGV[a + 9]), tonumber(ARGV[a + 10]), tonumber(ARGV[a + 11]), tonumber(ARGV[a + 12])
  local hourBaseK = nil
  if nh > 0 then
    hourBaseK = KEYS[k + 6]
    k = k + 7
    local hoursGen = ARGV[a + 13]
    if hoursGen ~= '' and hoursGen ~= gen then
      -- the day's spend per hour seen before the data was lost: each hour as the day's spend below
      for j = 0, nh - 1 do
        local h, seen = ARGV[a + 14 + 2 * j], tonumber(ARGV[a + 15 + 2 * j])
        local hb = num(redis.call('HGET', hourBaseK, h))
        if seen > hb then
          redis.call('HINCRBY', hourK, h, seen - hb)
          redis.call('HSET', hourBaseK, h, seen)
        end
      end
    end
    a = a + 14 + 2 * nh
  else
    k = k + 6
    a = a + 13
  end
  local spent = num(redis.call('GET', spentK))
  if floorGen ~= '' and floorGen ~= gen then
    -- seen before the data was lost: adds only what it is beyond the spend from before the loss
    -- the count already holds (the base)
    local base = num(redis.call('GET', baseK))
    if floor > base then
      spent = spent + floor - base
      redis.call('SET', spentK, spent)
      redis.call('SET', baseK, floor)
    end
  elseif spent < floor then
    -- the stats store's count: what it raises the count by is spend from before the loss, the same
    -- spend a process sends back, so it joins the base (the two are never added up)
    redis.call('SET', baseK, num(redis.call('GET', baseK)) + floor - spent)
    spent = floor
    redis.call('SET', spentK, floor)
  end
  if used ~= 0 then
    spent = redis.call('INCRBY', spentK, used)
    if hour >= 0 then redis.call('HINCRBY', hourK, hour, used) end
  end
  local amounts = hash(amountK)
  local expiries = hash(expiryK)
  local mine, others, lapsed = 0, 0, 0
  for who, exp in pairs(expiries) do
    if tonumber(exp) <= now then
      if who == pid then lapsed = lapsed + math.max(num(amounts[who]) - used, 0) else lapsed = lapsed + num(amounts[who]) end
      redis.call('HDEL', expiryK, who)
      redis.call('HDEL', amountK, who)
    elseif who == pid then
      mine = num(amounts[who])
    else
      others = others + num(amounts[who])
    end
  end
  local granted, paced = 0, 0
  if limit >= 0 then
    local free = limit - spent - others
    -- less than one decision's price is no lease (sharedCounters.ts: a fragment would strand)
    if free >= minG then granted = math.max(math.min(want, free), 0) end
    if even > 0 then
      local held = math.min(math.max(mine - used, 0), math.max(free, 0))
      -- pacing.ts allowedRate: the rest spread over the time left, plus the shortfall over catchUpMs
      local left = math.max(limit - spent, 0)
      local share = math.min(math.max((now - paceStart) / (dayEnd - paceStart), 0), 1)
      local behind = math.max(math.floor(limit * share + 0.5) - spent, 0)
      local rate = math.min(left / math.max(dayEnd - now, 1) + behind / catchUpMs, left > 0 and catchUp * even or 0)
      local cap = math.max(rate * burst, minG)
      local p = redis.call('HMGET', paceK, 't', 'at')
      local tokens, at = tonumber(p[1]), tonumber(p[2])
      if tokens == nil then tokens = cap; at = now end
      if now > at then tokens = tokens + rate * (now - at) end
      tokens = tokens + lapsed
      if tokens > cap then tokens = cap end
      if granted - held > tokens then
        granted = held + math.max(math.floor(tokens), 0)
        paced = 1
      end
      tokens = math.min(tokens - (granted - held), cap)
      redis.call('HSET', paceK, 't', tokens, 'at', math.max(now, at))
      redis.call('PEXPIRE', paceK, ttl > 0 and ttl or DAY)
    end
  end
  -- never below the reservations this process holds (sharedCounters.ts BudgetAsk.reserved)
  if limit >= 0 and reserved > granted then granted = reserved end
  if granted > 0 then
    redis.call('HSET', amountK, pid, granted)
    redis.call('HSET', expiryK, pid, now + leaseTtl)
  else
    redis.call('HDEL', amountK, pid)
    redis.call('HDEL', expiryK, pid)
  end
  local keep = ttl > 0 and ttl or DAY
  redis.call('PEXPIRE', amountK, keep)
  redis.call('PEXPIRE', expiryK, keep)
  if ttl > 0 then
    redis.call('PEXPIRE', spentK, ttl)
    redis.call('PEXPIRE', hourK, ttl)
    redis.call('PEXPIRE', baseK, ttl)
    if hourBaseK then redis.call('PEXPIRE', hourBaseK, ttl) end
  end
  local hourNow, hourBefore = 0, 0
  if hour >= 0 then hourNow = num(redis.call('HGET', hourK, hour)) end
  if hour > 0 then hourBefore = num(redis.call('HGET', hourK, hour - 1)) end
  budgets[i] = { granted, spent, others, paced, hourNow, hourBefore }
end

local counts = {}
for i = 1, nf do
  local key = KEYS[k]
  k = k + 1
  local incr, period, floor, floorEnd, floorGen = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), ARGV[a + 4]
  a = a + 5
  local v = redis.call('HMGET', key, 'n', 'e', 'b')
  local n, e, b = num(v[1]), num(v[2]), num(v[3])
  if e <= now then n = 0; e = 0; b = 0 end
  local raised = false
  if floorGen ~= '' and floorGen ~= gen and floorEnd > now and floor > b then
    -- the window as seen before the data was lost: it opened then, and the count since adds to it
    n = n + floor - b
    b = floor
    if e == 0 or floorEnd < e then e = floorEnd end
    raised = true
  end
  if incr > 0 or raised then
    if n == 0 then e = now + period end
    n = n + incr
    redis.call('HSET', key, 'n', n, 'e', e, 'b', b)
    redis.call('PEXPIRE', key, period + 3600000)
  end
  counts[i] = { n, e }
end

local shares = {}
for i = 1, nq do
  local demandK, expiryK = KEYS[k], KEYS[k + 1]
  k = k + 2
  local limit, demand = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  a = a + 2
  redis.call('HSET', demandK, pid, demand)
  redis.call('HSET', expiryK, pid, now + qpsTtl)
  local demands = hash(demandK)
  local expiries = hash(expiryK)
  local total, n = 0, 0
  for who, exp in pairs(expiries) do
    if tonumber(exp) <= now then
      redis.call('HDEL', expiryK, who)
      redis.call('HDEL', demandK, who)
    else
      total = total + num(demands[who])
      n = n + 1
    end
  end
  local share
  if total <= limit then share = demand + (limit - total) / math.max(n, 1)
  elseif total > 0 then share = limit * demand / total
  else share = 0 end
  redis.call('PEXPIRE', demandK, 60000)
  redis.call('PEXPIRE', expiryK, 60000)
  shares[i] = { math.floor(share * 1000), n }
end

return { processes, budgets, counts, shares, gen }
`;
