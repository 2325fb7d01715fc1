// The Redis store's Lua scripts: each step that must be atomic, or that would otherwise take
// several round trips, is one script. Times come from Redis's own clock (TIME), so replicas with
// skewed clocks agree on leases. ioredis sends them by SHA and reloads them after a Redis restart.

const NOW = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/** Stores a response and its items' owner keys within its tenant's caps: expired entries leave the
 * tenant's indexes, then its least recently stored ones while over the entry or byte cap, each with
 * its item keys. Works under maxmemory with noeviction: the response's SET is the first write (Redis
 * checks memory there), so a full Redis refuses it before anything changed and the script answers
 * 'full' (the caller says the response was not stored); reads never write.
 * KEYS: response, LRU index, expiry index, sizes hash, items-of key, item keys…
 * ARGV: id, json, bytes, ttlMs, maxEntries, maxBytes, response key prefix, items-of prefix.
 * Returns 1 if kept, 0 if larger than the byte cap, -1 when Redis is full. */
export const PUT_RESPONSE = `${NOW}
local id, bytes, ttl = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4])
local maxEntries, maxBytes, prefix, itemsPrefix = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], ARGV[8]
local function forget(old)
  local size = tonumber(redis.call('HGET', KEYS[4], old))
  if size then
    redis.call('HDEL', KEYS[4], old)
    redis.pcall('HINCRBY', KEYS[4], '\\0total', 0 - size)
  end
  redis.call('ZREM', KEYS[2], old)
  redis.call('ZREM', KEYS[3], old)
end
local function drop(old)
  forget(old)
  local items = redis.call('GET', itemsPrefix .. old)
  if items then
    for key in string.gmatch(items, '[^ ]+') do redis.call('DEL', key) end
    redis.call('DEL', itemsPrefix .. old)
  end
  redis.call('DEL', prefix .. old)
end
if bytes > maxBytes then
  forget(id)
  redis.call('DEL', KEYS[1])
  return 0
end
-- The first write: Redis checks maxmemory on a script's first write only, so a full Redis refuses
-- this one and the script leaves everything as it was.
local stored = redis.pcall('SET', KEYS[1], ARGV[2], 'PX', ttl)
if type(stored) == 'table' and stored.err then return -1 end
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do
  if old ~= id then drop(old) end
end
forget(id)
local itemKeys = {}
for i = 6, #KEYS do
  redis.pcall('SET', KEYS[i], id, 'PX', ttl)
  itemKeys[#itemKeys + 1] = KEYS[i]
end
if #itemKeys > 0 then redis.pcall('SET', KEYS[5], table.concat(itemKeys, ' '), 'PX', ttl) end
-- Uses are ordered by a counter, not the clock: two in one millisecond must still be ordered.
local clock = redis.pcall('HINCRBY', KEYS[4], '\\0clock', 1)
if type(clock) ~= 'number' then clock = now end
redis.pcall('ZADD', KEYS[2], clock, id)
redis.pcall('ZADD', KEYS[3], now + ttl, id)
redis.pcall('HSET', KEYS[4], id, bytes)
redis.pcall('HINCRBY', KEYS[4], '\\0total', bytes)
for _, key in ipairs({ KEYS[2], KEYS[3], KEYS[4] }) do redis.pcall('PEXPIRE', key, ttl) end
local total = tonumber(redis.call('HGET', KEYS[4], '\\0total')) or 0
while redis.call('ZCARD', KEYS[2]) > maxEntries or total > maxBytes do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest or oldest == id then break end
  drop(oldest)
  total = tonumber(redis.call('HGET', KEYS[4], '\\0total')) or 0
end
return 1`;

/** A stored response's JSON. Read-only (no-writes), so it runs when Redis is at maxmemory: a
 * response is evicted in the order it was stored, not by its last read. KEYS: response. */
export const GET_RESPONSE = `#!lua flags=no-writes
return redis.call('GET', KEYS[1])`;

/** For each item key, the JSON of the response holding it (false when not held).
 * KEYS: item keys. ARGV: response key prefix. */
export const FIND_ITEMS = `#!lua flags=no-writes
local found = {}
for i = 1, #KEYS do
  local id = redis.call('GET', KEYS[i])
  found[i] = id and redis.call('GET', ARGV[1] .. id) or false
end
return found`;

/** Leases and slots are written even when Redis is at maxmemory (noeviction): a few bytes per
 * replica and per response in flight, and without them a full store would take every replica for
 * dead (its responses taken over while they still generate) and free every key's slots. Stored
 * responses and event logs are refused there instead (PUT_RESPONSE says so). Must be the first
 * line of the script. */
const ALLOW_OOM = "#!lua flags=allow-oom";

/** Takes a slot unless `max` unexpired ones are held. KEYS: slots. ARGV: slot id, max, leaseMs.
 */
export const ACQUIRE_SLOT = `${ALLOW_OOM}
${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
return 1`;

/** Renews this replica's lease and the slots it holds (at maxmemory too: ALLOW_OOM).
 * KEYS: lease, then a slots key per slot. ARGV: leaseMs, then the slot ids. */
export const HEARTBEAT = `${ALLOW_OOM}
${NOW}
local lease = tonumber(ARGV[1])
redis.call('SET', KEYS[1], now, 'PX', lease)
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', now + lease, ARGV[i])
  redis.call('PEXPIRE', KEYS[i], lease * 2)
end
return 1`;

/** Appends the batches of several responses. KEYS: meta and events key per response.
 * ARGV: replica, unfinishedTtlMs, graceMs, then per response: owner, turn JSON or '', done (0|1),
 * its events' JSON joined by newlines (JSON text holds none): one argument per response rather
 * than per event, which is most of the client's cost; then its request key or '' and its id (a
 * retry of the request finds the response through that key, which expires with the log).
 * Returns per response 1 (appended), 0 (superseded) or -1 (lost). */
export const APPEND_LIVE = `local replica, unfinished, grace = ARGV[1], ARGV[2], ARGV[3]
local at = 4
local outcomes = {}
for k = 1, #KEYS, 2 do
  local meta, events = KEYS[k], KEYS[k + 1]
  local owner, turn, done, joined = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
  local request, id = ARGV[at + 4], ARGV[at + 5]
  at = at + 6
  local current = redis.call('HGET', meta, 'replica')
  if turn ~= '' and not current then
    redis.call('HSET', meta, 'replica', replica, 'owner', owner, 'turn', turn, 'done', '0')
    if request ~= '' then
      redis.call('SET', request, id, 'PX', unfinished)
      redis.call('HSET', meta, 'request', request)
    end
    current = replica
  end
  local outcome = -1
  if current == replica then
    outcome = 1
    local batch = {}
    for event in string.gmatch(joined, '[^\\n]+') do
      batch[#batch + 1] = event
      if #batch == 1000 then
        redis.call('RPUSH', events, unpack(batch))
        batch = {}
      end
    end
    if #batch > 0 then redis.call('RPUSH', events, unpack(batch)) end
    local ttl = unfinished
    if done == '1' then
      redis.call('HSET', meta, 'done', '1')
      ttl = grace
      local requestKey = redis.call('HGET', meta, 'request')
      if requestKey then redis.call('PEXPIRE', requestKey, grace) end
    end
    redis.call('PEXPIRE', meta, ttl)
    redis.call('PEXPIRE', events, ttl)
  elseif current then
    outcome = 0
  end
  outcomes[#outcomes + 1] = outcome
end
return outcomes`;

/** A response's log after an index, with who generates it and whether that replica is alive.
 * KEYS: meta, events. ARGV: first index, lease key prefix.
 * Returns false, or {replica, owner, turn, done, alive (0|1), log length, events…}. */
export const READ_LIVE = `#!lua flags=no-writes
local meta = redis.call('HMGET', KEYS[1], 'replica', 'owner', 'turn', 'done')
if not meta[1] then return false end
local alive = redis.call('EXISTS', ARGV[2] .. meta[1])
local result = { meta[1], meta[2], meta[3], meta[4], alive, redis.call('LLEN', KEYS[2]) }
for _, event in ipairs(redis.call('LRANGE', KEYS[2], tonumber(ARGV[1]), -1)) do
  result[#result + 1] = event
end
return result`;

/** Makes ARGV[1] the generator if the response is unfinished and its replica's lease is gone.
 * KEYS: meta. ARGV: replica, owner, lease key prefix. Returns the outcome's name. */
export const CLAIM_LIVE = `local meta = redis.call('HMGET', KEYS[1], 'replica', 'owner', 'done')
if not meta[1] or meta[2] ~= ARGV[2] then return 'missing' end
if meta[3] == '1' then return 'done' end
if meta[1] ~= ARGV[1] and redis.call('EXISTS', ARGV[3] .. meta[1]) == 1 then return 'alive' end
redis.call('HSET', KEYS[1], 'replica', ARGV[1])
return 'claimed'`;
