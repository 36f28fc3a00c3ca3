/**
 * Slows guesses of the admin token: a source address that sent `maxFailures` wrong tokens in a minute (a fixed
 * window from its first failure) is refused, the right token too, until the window ends; otherwise a guess that
 * is not refused would tell which one was right. In process memory, per process. At most `maxSources` addresses
 * are followed: past that, new ones share one window (a spray of forged X-Forwarded-For addresses locks only
 * that shared window, not the addresses already followed).
 */
export const TOKEN_WINDOW_MS = 60_000
const MAX_SOURCES = 10_000
const OTHERS = 'other addresses'

interface Window {
  start: number
  failures: number
}

export interface TokenGuard {
  /** Milliseconds `source` must wait before it is heard again; 0: go ahead. */
  waitMs(source: string, nowMs: number): number
  /** Counts a wrong token from `source` (a missing one is no guess). */
  failed(source: string, nowMs: number): void
}

export function createTokenGuard(opts: { maxFailures: number; maxSources?: number }): TokenGuard {
  const maxSources = opts.maxSources ?? MAX_SOURCES
  const windows = new Map<string, Window>()
  let swept = 0
  const open = (w: Window | undefined, nowMs: number): w is Window =>
    w !== undefined && nowMs - w.start < TOKEN_WINDOW_MS
  const keyOf = (source: string, nowMs: number): string => {
    if (windows.has(source) || windows.size < maxSources) return source
    // Full: drop the ended windows, at most once a window's length (not a scan per call of a spray).
    if (nowMs - swept >= TOKEN_WINDOW_MS) {
      swept = nowMs
      for (const [k, w] of windows) if (!open(w, nowMs)) windows.delete(k)
    }
    return windows.size < maxSources ? source : OTHERS
  }
  return {
    waitMs(source, nowMs) {
      const w = windows.get(windows.has(source) ? source : windows.size < maxSources ? source : OTHERS)
      if (!open(w, nowMs) || w.failures < opts.maxFailures) return 0
      return w.start + TOKEN_WINDOW_MS - nowMs
    },
    failed(source, nowMs) {
      const key = keyOf(source, nowMs)
      const w = windows.get(key)
      if (open(w, nowMs)) w.failures++
      else windows.set(key, { start: nowMs, failures: 1 })
    },
  }
}
