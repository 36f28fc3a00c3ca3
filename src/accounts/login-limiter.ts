/**
 * Attempt limiter for log-in and sign-up: at most `maxAttempts` per subject (email, client IP) in any `windowMs`
 * (sliding window).
 *
 * An attempt is counted when it starts, before the ~70 ms password check, so parallel guesses cannot all slip
 * through while the first ones are still being checked: the (max+1)-th concurrent attempt is refused at once.
 * A log-in that succeeds is then forgiven (`forgive`), so a user who types the right password is never slowed.
 * In-process state by default; with Redis (config redis.url) one window shared by every replica
 * (`createRedisAttemptLimiter`), falling back to this replica's own window while Redis is unreachable.
 */
import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { DashboardConfig } from '../config/dashboard-schema.ts'
import type { RedisConnection } from '../redis/connection.ts'

export interface Attempt {
  readonly subjects: readonly string[]
  readonly at: number
  /** Its member in Redis's windows (undefined: counted in memory). */
  readonly id?: string
}

export type BeginResult = { attempt: Attempt } | { waitMs: number }

export interface AttemptLimiter {
  /** Counts an attempt for every subject, or refuses it: `waitMs` is the time until one is allowed again. */
  begin(subjects: readonly string[], nowMs: number): BeginResult | Promise<BeginResult>
  /** Removes a counted attempt (a successful log-in); `resetSubject` also clears that subject's window. */
  forgive(attempt: Attempt, resetSubject?: string): void
  /**
   * Clears a subject's window (an operator's unlock): true when attempts were counted. Rejects while Redis is
   * unreachable (its shared window could not be cleared; this process's own one is).
   */
  clear(subject: string): Promise<boolean>
  /** Where the windows live: in Redis (every replica and the CLI see them) or in this process only. */
  readonly scope: 'redis' | 'process'
}

/** The subject an account's log-ins and second-factor codes are counted under (its normalized email). */
export const emailSubject = (email: string): string => `email:${email}`

/** Idle subjects are swept once the map holds this many, bounding memory under a spray of random emails. */
const SWEEP_AT = 10_000

/** The in-memory limiter answers synchronously: no await between the check and the count. */
export interface SyncAttemptLimiter extends AttemptLimiter {
  begin(subjects: readonly string[], nowMs: number): BeginResult
}

export function createAttemptLimiter(opts: { maxAttempts: number; windowMs: number }): SyncAttemptLimiter {
  const attempts = new Map<string, number[]>()

  const recent = (subject: string, nowMs: number): number[] => {
    const times = attempts.get(subject)
    if (!times) return []
    const kept = times.filter((t) => t > nowMs - opts.windowMs)
    if (kept.length === 0) attempts.delete(subject)
    else if (kept.length !== times.length) attempts.set(subject, kept)
    return kept
  }

  return {
    begin(subjects, nowMs) {
      let wait = 0
      for (const s of subjects) {
        const times = recent(s, nowMs)
        if (times.length >= opts.maxAttempts)
          wait = Math.max(wait, times[times.length - opts.maxAttempts]! + opts.windowMs - nowMs)
      }
      if (wait > 0) return { waitMs: wait }
      if (attempts.size > SWEEP_AT) for (const s of [...attempts.keys()]) recent(s, nowMs)
      // Synchronous from check to count: no await in between, so concurrent requests see each other.
      for (const s of subjects) attempts.set(s, [...recent(s, nowMs), nowMs])
      return { attempt: { subjects: [...subjects], at: nowMs } }
    },
    forgive(attempt, resetSubject) {
      for (const s of attempt.subjects) {
        const times = attempts.get(s)
        const i = times ? times.indexOf(attempt.at) : -1
        if (i >= 0) times!.splice(i, 1)
        if (times && times.length === 0) attempts.delete(s)
      }
      if (resetSubject !== undefined) attempts.delete(resetSubject)
    },
    clear: async (subject) => attempts.delete(subject),
    scope: 'process',
  }
}

// KEYS: one sorted set per subject (attempt times). ARGV: now, window ms, max attempts, member. Answers the wait in
// ms (0: counted for every subject), checked and counted in one step, so replicas see each other's attempts.
const BEGIN = `
local now, win, max, member = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local wait = 0
for _, k in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', k, '-inf', now - win)
  local n = redis.call('ZCARD', k)
  if n >= max then
    local oldest = redis.call('ZRANGE', k, n - max, n - max, 'WITHSCORES')
    local w = tonumber(oldest[2]) + win - now
    if w > wait then wait = w end
  end
end
if wait > 0 then return wait end
for _, k in ipairs(KEYS) do
  redis.call('ZADD', k, now, member)
  redis.call('PEXPIRE', k, win)
end
return 0
`

interface ScriptedRedis extends Redis {
  cgAttempt(numKeys: number, ...args: (string | number)[]): Promise<number>
}

/**
 * The same limiter with its windows in Redis, shared by every replica (`name` separates log-in from sign-up).
 * While Redis is unreachable each replica counts in its own memory window (as without Redis).
 */
export function createRedisAttemptLimiter(
  connection: RedisConnection,
  name: string,
  opts: { maxAttempts: number; windowMs: number },
): AttemptLimiter {
  const client = connection.client as ScriptedRedis
  if (typeof client.cgAttempt !== 'function') client.defineCommand('cgAttempt', { lua: BEGIN })
  const local = createAttemptLimiter(opts)
  const key = (subject: string) => `${connection.prefix}login:${name}:${subject}`
  return {
    async begin(subjects, nowMs) {
      const id = `${nowMs}:${randomBytes(6).toString('base64url')}`
      let waitMs: number
      try {
        waitMs = await client.cgAttempt(
          subjects.length,
          ...subjects.map(key),
          nowMs,
          opts.windowMs,
          opts.maxAttempts,
          id,
        )
      } catch {
        return local.begin(subjects, nowMs)
      }
      return waitMs > 0 ? { waitMs } : { attempt: { subjects: [...subjects], at: nowMs, id } }
    },
    forgive(attempt, resetSubject) {
      if (attempt.id === undefined) return local.forgive(attempt, resetSubject)
      const batch = client.multi()
      for (const s of attempt.subjects) batch.zrem(key(s), attempt.id)
      if (resetSubject !== undefined) batch.del(key(resetSubject))
      // Best effort: a forgiveness lost to an outage only leaves an attempt counted until its window ends.
      batch.exec().catch(() => undefined)
    },
    async clear(subject) {
      const here = await local.clear(subject)
      return (await client.del(key(subject))) > 0 || here
    },
    scope: 'redis',
  }
}

/** The dashboard's limiters (docs/dashboard.md): made once per process, shared by the dashboard and the admin API. */
export interface DashboardLimiters {
  /** Log-in attempts (and second-factor codes, and passwords typed in settings) per email and per client IP. */
  login: AttemptLimiter
  /** Sign-ups per client IP. */
  signup: AttemptLimiter
  /** Password-reset requests (and resent confirmation links) per email and per client IP. */
  reset: AttemptLimiter
}

export function createDashboardLimiters(
  cfg: Pick<DashboardConfig, 'loginAttemptsPerMinute' | 'signupsPerHour' | 'resetsPerHour'>,
  redis: RedisConnection | undefined,
): DashboardLimiters {
  const limiter = (name: string, opts: { maxAttempts: number; windowMs: number }) =>
    redis ? createRedisAttemptLimiter(redis, name, opts) : createAttemptLimiter(opts)
  return {
    login: limiter('login', { maxAttempts: cfg.loginAttemptsPerMinute, windowMs: 60_000 }),
    signup: limiter('signup', { maxAttempts: cfg.signupsPerHour, windowMs: 3_600_000 }),
    reset: limiter('reset', { maxAttempts: cfg.resetsPerHour, windowMs: 3_600_000 }),
  }
}

/** An operator's unlock of an account (admin API, CLI): its counted failed log-ins and second-factor codes go. */
export const unlockLogins = (limiters: Pick<DashboardLimiters, 'login'>, email: string): Promise<boolean> =>
  limiters.login.clear(emailSubject(email))
