/**
 * The Lua scripts of the Redis limit store (src/credits/limits/redis/store.ts) and their replies: the atomic lease
 * (check every limit and reserve), the exactly-once usage write, and the reaping of a dead replica's leases.
 */
import type { Redis } from 'ioredis'
import type { LimitRejection } from '../memory.ts'

/** The lease script's answer when Redis has no epoch (it lost its data). */
export const RESET = 9

export const CODES: (LimitRejection | null)[] = [
  null,
  'DAILY_CREDITS_EXHAUSTED',
  'KEY_DAILY_CREDITS_EXHAUSTED',
  'ACCOUNT_THROUGHPUT_EXCEEDED',
  'KEY_THROUGHPUT_EXCEEDED',
]

// KEYS: account day, key day, account bucket, key bucket, this replica's lease record, its heartbeat, the epoch
// (absent: Redis lost its data, answer 9 and change nothing).
// ARGV: need, want, account/day, key/day (-1: none), account/s, key/s (-1: none), now ms, give back, ttl s, capped
// (1|0),
// lease record field, heartbeat ms.
// Gives `give back` (a leftover lease) back first, then: uncapped, refuses with a code (1-4) unless every limit
// admits `need`, else reserves between need and want; capped (an input-error fee, an event), reserves what is left
// of the day up to need, without the bucket checks. Answers {code, granted, account used, key used}.
export const LEASE = `
if redis.call('EXISTS', KEYS[7]) == 0 then return {9, 0, 0, 0} end
local need, want = tonumber(ARGV[1]), tonumber(ARGV[2])
local accDay, keyDay = tonumber(ARGV[3]), tonumber(ARGV[4])
local accSec, keySec = tonumber(ARGV[5]), tonumber(ARGV[6])
local now, back, ttl, capped = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10] == '1'
local function bucket(key, perSec)
  local v = redis.call('HMGET', key, 't', 'at')
  local t, at = tonumber(v[1]), tonumber(v[2])
  if t == nil then return perSec end
  if now > at then t = math.min(perSec, t + (now - at) * perSec / 1000) end
  return math.min(perSec, t + back)
end
local accUsed = tonumber(redis.call('GET', KEYS[1]) or '0') - back
local keyUsed = tonumber(redis.call('GET', KEYS[2]) or '0') - back
local at = bucket(KEYS[3], accSec)
local kt = 0
if keySec >= 0 then kt = bucket(KEYS[4], keySec) end
local grant = 0
local code = 0
if capped then
  grant = math.min(need, math.max(0, accDay - accUsed))
  if keyDay >= 0 then grant = math.min(grant, math.max(0, keyDay - keyUsed)) end
elseif accUsed + need > accDay then code = 1
elseif keyDay >= 0 and keyUsed + need > keyDay then code = 2
elseif at < math.min(need, accSec) then code = 3
elseif keySec >= 0 and kt < math.min(need, keySec) then code = 4
else
  grant = math.min(want, need + math.floor((accDay - accUsed - need) / 4))
  if keyDay >= 0 then grant = math.min(grant, need + math.floor((keyDay - keyUsed - need) / 4)) end
  grant = math.min(grant, math.max(need, math.floor(at)))
  if keySec >= 0 then grant = math.min(grant, math.max(need, math.floor(kt))) end
  grant = math.max(grant, need)
end
if grant > 0 or back > 0 then
  accUsed = accUsed + grant
  keyUsed = keyUsed + grant
  redis.call('SET', KEYS[1], string.format('%.0f', accUsed), 'EX', ttl)
  redis.call('SET', KEYS[2], string.format('%.0f', keyUsed), 'EX', ttl)
  redis.call('HSET', KEYS[3], 't', string.format('%.17g', at - grant), 'at', string.format('%.0f', now))
  redis.call('PEXPIRE', KEYS[3], 60000)
  if keySec >= 0 then
    redis.call('HSET', KEYS[4], 't', string.format('%.17g', kt - grant), 'at', string.format('%.0f', now))
    redis.call('PEXPIRE', KEYS[4], 60000)
  end
  -- The lease record counts what this replica holds; the call's own price counts as held until reported spent.
  local held = grant - back
  if capped then held = -back end
  if held ~= 0 then
    redis.call('HINCRBY', KEYS[5], ARGV[11], held)
    redis.call('PEXPIRE', KEYS[5], 172800000)
    redis.call('SET', KEYS[6], '1', 'PX', ARGV[12])
  end
end
return {code, grant, accUsed, keyUsed}
`

// KEYS: account day, key day, applied marker, this replica's lease record, the epoch (absent: answer 9). ARGV: delta,
// ttl s, lease record field
// ('' when the write is not a lease handed back). Adds usage charged while Redis was unreachable (or a correction
// beyond a lease, or a lease handed back) exactly once: a retry with the same marker changes nothing.
export const APPLY = `
if redis.call('EXISTS', KEYS[5]) == 0 then return {9, 0, 0} end
if redis.call('SET', KEYS[3], '1', 'NX', 'EX', 172800) == false then
  return {0, tonumber(redis.call('GET', KEYS[1]) or '0'), tonumber(redis.call('GET', KEYS[2]) or '0')}
end
local a = redis.call('INCRBY', KEYS[1], ARGV[1])
local k = redis.call('INCRBY', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
if ARGV[3] ~= '' then redis.call('HINCRBY', KEYS[4], ARGV[3], ARGV[1]) end
return {1, a, k}
`

// KEYS: a replica's lease record, its heartbeat, its tombstone. ARGV: key prefix. A replica without a heartbeat
// is gone: what its record holds goes back to the day counters, once (the record is deleted in the same step).
export const REAP = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local day, acc, key = string.match(fields[i], '^(%d+)|([^|]*)|(.*)$')
  local held = tonumber(fields[i + 1])
  if day and held ~= 0 then
    redis.call('DECRBY', ARGV[1] .. 'd:' .. day .. ':a:' .. acc, held)
    redis.call('DECRBY', ARGV[1] .. 'd:' .. day .. ':k:' .. key, held)
  end
end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[3], '1', 'EX', 172800)
return 1
`

export type LeaseReply = [number, number, number, number]
export type ApplyReply = [number, number, number]

export interface ScriptedRedis extends Redis {
  cgLease(
    k1: string,
    k2: string,
    k3: string,
    k4: string,
    k5: string,
    k6: string,
    k7: string,
    ...argv: (string | number)[]
  ): Promise<LeaseReply>
  cgApply(
    k1: string,
    k2: string,
    k3: string,
    k4: string,
    k5: string,
    delta: number,
    ttl: number,
    field: string,
  ): Promise<ApplyReply>
  cgReap(k1: string, k2: string, k3: string, prefix: string): Promise<number>
}
