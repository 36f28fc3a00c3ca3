/**
 * Attempt limiter for log-in and sign-up: at most `maxAttempts` per subject (email, client IP) in any `windowMs`
 * (sliding window).
 *
 * An attempt is counted when it starts, before the ~70 ms password check, so parallel guesses cannot all slip
 * through while the first ones are still being checked: the (max+1)-th concurrent attempt is refused at once.
 * A log-in that succeeds is then forgiven (`forgive`), so a user who types the right password is never slowed.
 * In-process state: with several gateway replicas each enforces its own window.
 */
export interface Attempt {
  readonly subjects: readonly string[]
  readonly at: number
}

export interface AttemptLimiter {
  /** Counts an attempt for every subject, or refuses it: `waitMs` is the time until one is allowed again. */
  begin(subjects: readonly string[], nowMs: number): { attempt: Attempt } | { waitMs: number }
  /** Removes a counted attempt (a successful log-in); `resetSubject` also clears that subject's window. */
  forgive(attempt: Attempt, resetSubject?: string): void
}

/** Idle subjects are swept once the map holds this many, bounding memory under a spray of random emails. */
const SWEEP_AT = 10_000

export function createAttemptLimiter(opts: { maxAttempts: number; windowMs: number }): AttemptLimiter {
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
        if (times.length >= opts.maxAttempts) wait = Math.max(wait, times[times.length - opts.maxAttempts]! + opts.windowMs - nowMs)
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
  }
}
