import { describe, expect, it } from 'vitest'
import { closest, didYouMean, editDistance } from './suggest.ts'

describe('did you mean', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('strat', 'start')).toBe(1)
    expect(editDistance('josn', 'json')).toBe(1)
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(editDistance('', 'key')).toBe(3)
  })

  it('suggests only close words, or the one word a prefix names', () => {
    const commands = ['start', 'plans', 'account', 'key', 'usage', 'wallet', 'help']
    expect(closest('acount', commands)).toBe('account')
    expect(closest('wal', commands)).toBe('wallet')
    expect(closest('xyzzy', commands)).toBeUndefined()
    expect(closest('k', commands)).toBeUndefined()
    expect(didYouMean('--josn', ['json', 'day'], '--')).toBe(' (did you mean --json?)')
    expect(didYouMean('--zzz', ['json', 'day'], '--')).toBe('')
  })
})
