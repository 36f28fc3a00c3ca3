import { describe, expect, it } from 'vitest'
import { printable } from './printable.ts'

describe('printable', () => {
  it('escapes control and format characters, keeps newlines, tabs and ordinary Unicode', () => {
    expect(printable('dev@localhost\u0000')).toBe('dev@localhost\\u0000')
    expect(printable('\u001b[2J\u0007x')).toBe('\\u001b[2J\\u0007x')
    expect(printable('a\u202eb\u2066c\u200bd\ufeffe\u009bf\u007fg')).toBe(
      'a\\u202eb\\u2066c\\u200bd\\ufeffe\\u009bf\\u007fg',
    )
    expect(printable('line 1\n\tline 2 — ünïcödé 名前 🙂')).toBe('line 1\n\tline 2 — ünïcödé 名前 🙂')
    // An astral format character (a language tag) as its two UTF-16 escapes.
    expect(printable('x\u{e0001}')).toBe('x\\udb40\\udc01')
  })

  it('JSON output stays JSON with the same values', () => {
    const value = { email: 'a\u202e@b\u0000', summary: 'x\u001b[31m\u2028' }
    const shown = printable(JSON.stringify(value, null, 2))
    expect(shown).not.toMatch(/[\u001b\u202e\u2028]/)
    expect(JSON.parse(shown)).toEqual(value)
  })
})
