// The Redis store's Lua scripts: each step that must be atomic, or that would otherwise take
// several round trips, is one script. Times come from Redis's own clock (TIME), so replicas with
// skewed clocks agree on leases. ioredis sends them by SHA and reloads them after a Redis restart.

const NOW = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/** Stores a response and its items' owner keys, then evicts: expired entries from the indexes,
 * then least recently used ones while over the entry or byte cap.
 * KEYS: response, LRU index, expiry index, sizes hash, item keys…
 * ARGV: id, json, bytes, ttlMs, maxEntries, maxBytes, response key prefix. Returns 1 if kept. */
export const PUT_RESPONSE = `${NOW}
local id, bytes, ttl = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4])
local maxEntries, maxBytes, prefix = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local function forget(old)
  local size = tonumber(redis.call('HGET', KEYS[4], old))
  if size then
    redis.call('HDEL', KEYS[4], old)
    redis.call('HINCRBY', KEYS[4], '\\0total', 0 - size)
  end
  redis.call('ZREM', KEYS[2], old)
  redis.call('ZREM', KEYS[3], old)
end
forget(id)
if bytes > maxBytes then redis.call('DEL', KEYS[1]) return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
for i = 5, #KEYS do redis.call('SET', KEYS[i], id, 'PX', ttl) end
-- Uses are ordered by a counter, not the clock: two in one millisecond must still be ordered.
redis.call('ZADD', KEYS[2], redis.call('HINCRBY', KEYS[4], '\\0clock', 1), id)
redis.call('ZADD', KEYS[3], now + ttl, id)
redis.call('HSET', KEYS[4], id, bytes)
local total = redis.call('HINCRBY', KEYS[4], '\\0total', bytes)
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do forget(old) end
total = tonumber(redis.call('HGET', KEYS[4], '\\0total')) or 0
while redis.call('ZCARD', KEYS[2]) > maxEntries or total > maxBytes do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest then break end
  forget(oldest)
  redis.call('DEL', prefix .. oldest)
  total = tonumber(redis.call('HGET', KEYS[4], '\\0total')) or 0
end
return 1`;

/** A stored response's JSON; a hit counts as a use. KEYS: response, LRU index, sizes hash.
 * ARGV: id. */
export const GET_RESPONSE = `local json = redis.call('GET', KEYS[1])
if json then
  redis.call('ZADD', KEYS[2], 'XX', redis.call('HINCRBY', KEYS[3], '\\0clock', 1), ARGV[1])
end
return json`;

/** For each item key, the JSON of the response holding it (false when not held).
 * KEYS: item keys. ARGV: response key prefix. */
export const FIND_ITEMS = `local found = {}
for i = 1, #KEYS do
  local id = redis.call('GET', KEYS[i])
  found[i] = id and redis.call('GET', ARGV[1] .. id) or false
end
return found`;

/** Takes a slot unless `max` unexpired ones are held. KEYS: slots. ARGV: slot id, max, leaseMs. */
export const ACQUIRE_SLOT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
return 1`;

/** Renews this replica's lease and the slots it holds.
 * KEYS: lease, then a slots key per slot. ARGV: leaseMs, then the slot ids. */
export const HEARTBEAT = `${NOW}
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
 * than per event, which is most of the client's cost. Returns per response 1 (appended),
 * 0 (superseded) or -1 (lost). */
export const APPEND_LIVE = `local replica, unfinished, grace = ARGV[1], ARGV[2], ARGV[3]
local at = 4
local outcomes = {}
for k = 1, #KEYS, 2 do
  local meta, events = KEYS[k], KEYS[k + 1]
  local owner, turn, done, joined = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
  at = at + 4
  local current = redis.call('HGET', meta, 'replica')
  if turn ~= '' and not current then
    redis.call('HSET', meta, 'replica', replica, 'owner', owner, 'turn', turn, 'done', '0')
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
export const READ_LIVE = `local meta = redis.call('HMGET', KEYS[1], 'replica', 'owner', 'turn', 'done')
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
