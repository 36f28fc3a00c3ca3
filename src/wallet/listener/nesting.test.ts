import { describe, expect, test } from 'vitest'
import { MAX_MESSAGE_DEPTH, nestsDeeperThan } from './nesting.ts'

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`

describe('nestsDeeperThan', () => {
  test('counts objects and arrays, not brackets inside strings', () => {
    expect(nestsDeeperThan(nested(3), 3)).toBe(false)
    expect(nestsDeeperThan(nested(4), 3)).toBe(true)
    expect(nestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false)
    expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true)
    expect(nestsDeeperThan(`["${'[{'.repeat(50)}", "\\"[[[[" ]`, 1)).toBe(false)
    expect(nestsDeeperThan(`[[1],[2],[3],[4],[5]]`, 2)).toBe(false)
  })

  test('the default: the gateway limit plus the two levels around an invoked call; 100,000 levels at once', () => {
    expect(MAX_MESSAGE_DEPTH).toBe(66)
    expect(nestsDeeperThan(nested(66))).toBe(false)
    expect(nestsDeeperThan(nested(67))).toBe(true)
    expect(nestsDeeperThan(nested(100_000))).toBe(true)
  })
})
