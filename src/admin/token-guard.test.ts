import { describe, expect, it } from 'vitest'
import { createTokenGuard, TOKEN_WINDOW_MS } from './token-guard.ts'

describe('token guard', () => {
  it('refuses an address for the rest of the minute after maxFailures wrong tokens', () => {
    const g = createTokenGuard({ maxFailures: 3 })
    for (let i = 0; i < 3; i++) {
      expect(g.waitMs('a', 1000 + i)).toBe(0)
      g.failed('a', 1000 + i)
    }
    expect(g.waitMs('a', 1010)).toBe(TOKEN_WINDOW_MS - 10)
    expect(g.waitMs('b', 1010)).toBe(0)
    expect(g.waitMs('a', 1000 + TOKEN_WINDOW_MS)).toBe(0)
  })

  it('past maxSources addresses, new ones share one window; ended windows make room again', () => {
    const g = createTokenGuard({ maxFailures: 2, maxSources: 2 })
    g.failed('a', 0)
    g.failed('b', 0)
    g.failed('c', 0)
    g.failed('d', 0)
    // c and d counted together: both refused; a and b keep their own counts.
    expect([g.waitMs('c', 1), g.waitMs('d', 1), g.waitMs('a', 1), g.waitMs('b', 1)]).toEqual([
      TOKEN_WINDOW_MS - 1,
      TOKEN_WINDOW_MS - 1,
      0,
      0,
    ])
    g.failed('e', TOKEN_WINDOW_MS)
    expect(g.waitMs('e', TOKEN_WINDOW_MS)).toBe(0)
    g.failed('e', TOKEN_WINDOW_MS)
    expect(g.waitMs('e', TOKEN_WINDOW_MS)).toBe(TOKEN_WINDOW_MS)
    expect(g.waitMs('f', TOKEN_WINDOW_MS)).toBe(0)
  })
})
