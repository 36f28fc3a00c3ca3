/**
 * Failed-login limiter: at most `maxFailures` failed logins per email and per client IP in any `windowMs`
 * (sliding window). Successful logins are not counted, so a user who types the right password is never slowed.
 * In-process state: with several gateway replicas each enforces its own window (Redis-backed limits are a later
 * issue).
 */
export interface LoginLimiter {
  /** ms until another attempt is allowed for any of these subjects; 0 when allowed now. */
  retryAfterMs(subjects: string[], nowMs: number): number
  recordFailure(subjects: string[], nowMs: number): void
  reset(subject: string): void
}

export function createLoginLimiter(opts: { maxFailures: number; windowMs: number }): LoginLimiter {
  const failures = new Map<string, number[]>()

  const recent = (subject: string, nowMs: number): number[] => {
    const times = failures.get(subject)
    if (!times) return []
    const kept = times.filter((t) => t > nowMs - opts.windowMs)
    if (kept.length === 0) failures.delete(subject)
    else failures.set(subject, kept)
    return kept
  }

  return {
    retryAfterMs(subjects, nowMs) {
      let wait = 0
      for (const s of subjects) {
        const times = recent(s, nowMs)
        if (times.length >= opts.maxFailures) wait = Math.max(wait, times[times.length - opts.maxFailures]! + opts.windowMs - nowMs)
      }
      return wait
    },
    recordFailure(subjects, nowMs) {
      // Bound memory under a spray of random emails: drop idle subjects when the map grows.
      if (failures.size > 10_000) for (const s of [...failures.keys()]) recent(s, nowMs)
      for (const s of subjects) failures.set(s, [...recent(s, nowMs), nowMs])
    },
    reset(subject) {
      failures.delete(subject)
    },
  }
}
