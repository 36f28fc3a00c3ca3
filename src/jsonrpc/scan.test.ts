import { describe, expect, it } from 'vitest'
import { afterString, afterValue, bytesAre, MemberWalk, plainContainerEnd, plainStringEnd, skipSpace } from './scan.ts'

const b = (s: string) => Buffer.from(s)

/** Every member of `text` as [key, value] texts, and how the walk ended. */
function walk(text: string, start = 0, end = Buffer.byteLength(text)) {
  const bytes = b(text)
  const w = new MemberWalk(bytes, start, end)
  const members: [string, string][] = []
  while (w.next()) {
    const key = bytes.toString('utf8', w.keyStart, w.keyEnd)
    if (w.skipValue() < 0) break
    members.push([key, bytes.toString('utf8', w.valueStart, w.valueEnd)])
  }
  return { members, fault: w.fault }
}

describe('scan primitives', () => {
  it('skipSpace skips the four JSON whitespace bytes only', () => {
    expect(skipSpace(b(' \t\r\n x'), 0)).toBe(5)
    expect(skipSpace(b('\u00a0x'), 0)).toBe(0)
    expect(skipSpace(b('   '), 0)).toBe(3)
  })

  it('afterString skips escapes, including an escaped quote and backslash', () => {
    expect(afterString(b('"ab"x'), 0)).toBe(4)
    expect(afterString(b('"a\\"b"x'), 0)).toBe(6)
    expect(afterString(b('"a\\\\"x'), 0)).toBe(5)
    expect(afterString(b('"never ends'), 0)).toBe(-1)
  })

  it('afterValue skips strings, nested containers (brackets inside strings ignored) and scalars', () => {
    const text = '{"a":[1,{"b":"]}"}],"c":"x"} tail'
    expect(afterValue(b(text), 0)).toBe(text.indexOf(' tail'))
    expect(afterValue(b('[[], {}],'), 0)).toBe(8)
    expect(afterValue(b('-1.5e3,'), 0)).toBe(6)
    expect(afterValue(b('true}'), 0)).toBe(4)
    expect(afterValue(b('null'), 0)).toBe(-1) // no delimiter after it: cannot tell it ended
    expect(afterValue(b(',x'), 0)).toBe(0) // no value at all
    expect(afterValue(b('[1,2'), 0)).toBe(-1)
    expect(afterValue(b('["]'), 0)).toBe(-1)
  })

  it('plainStringEnd takes printable ASCII without escapes only', () => {
    expect(plainStringEnd(b('"eth_call" '), 0)).toBe(9)
    expect(plainStringEnd(b('"a\\"b"'), 0)).toBe(-1)
    expect(plainStringEnd(b('"a\tb"'), 0)).toBe(-1)
    expect(plainStringEnd(b('"\u00e9"'), 0)).toBe(-1)
    expect(plainStringEnd(b('"open'), 0)).toBe(-1)
  })

  it('plainContainerEnd matches brackets over plain bytes, whitespace allowed', () => {
    expect(plainContainerEnd(b('[ "0x1",\n{"a":"]"} ] x'), 0, 64)).toBe(20)
    expect(plainContainerEnd(b('["\\u0041"]'), 0, 64)).toBe(-1)
    expect(plainContainerEnd(b('[\u00e9]'), 0, 64)).toBe(-1)
    expect(plainContainerEnd(b('[[1]'), 0, 64)).toBe(-1)
  })

  it('bytesAre compares in place', () => {
    const x = b('{"result":1}')
    expect(bytesAre(x, 2, 8, 'result')).toBe(true)
    expect(bytesAre(x, 2, 8, 'resulT')).toBe(false)
    expect(bytesAre(x, 2, 7, 'result')).toBe(false)
  })

  it('plainContainerEnd bounds the brackets it opens (both kinds, its own included; none inside strings)', () => {
    expect(plainContainerEnd(b('[{}]'), 0, 2)).toBe(4)
    expect(plainContainerEnd(b('[{[]}]'), 0, 2)).toBe(-1)
    expect(plainContainerEnd(b('["[[["]'), 0, 1)).toBe(7)
  })
})

describe('MemberWalk', () => {
  it('yields each top-level member in order, nested keys and strings not counted', () => {
    expect(walk(' {"id":{"error":1},"s":"\\"x\\":", "result" : [1,{"a":2}] } ')).toEqual({
      members: [
        ['id', '{"error":1}'],
        ['s', '"\\"x\\":"'],
        ['result', '[1,{"a":2}]'],
      ],
      fault: undefined,
    })
    expect(walk('{}')).toEqual({ members: [], fault: undefined })
  })

  it('says why bytes are not one object', () => {
    expect(walk('   ').fault).toBe('an empty body')
    expect(walk('[{"id":1}]').fault).toBe('not a JSON object')
    expect(walk('{"id":1,').fault).toBe('cut short')
    expect(walk('{"id":1').fault).toBe('cut short')
    expect(walk('{"id":"1').fault).toBe('cut short')
    expect(walk('{"id":}').fault).toBe('cut short')
    expect(walk('{"id" 1}').fault).toBe('not JSON')
    expect(walk('{"id":"a";"x":2}').fault).toBe('not JSON')
    expect(walk('{id:1}').fault).toBe('not JSON')
    expect(walk('{"id":1} x').fault).toBe('bytes after the answer')
    expect(walk('{} x').fault).toBe('bytes after the answer')
  })

  it('keeps members found before a fault', () => {
    expect(walk('{"a":1,"b":[2],"c"').members).toEqual([
      ['a', '1'],
      ['b', '[2]'],
    ])
  })

  it('walks a sub-range of a buffer (one entry of a batch)', () => {
    const text = '[{"id":1},{"id":2}]'
    expect(walk(text, 10, 18)).toEqual({ members: [['id', '2']], fault: undefined })
    expect(walk(text, 1, 5).fault).toBe('cut short')
  })

  it('can stop at a key without walking its value, and skips it itself when asked for the next', () => {
    const bytes = b('{"result":[1,2,3],"id":7}')
    const w = new MemberWalk(bytes, 0, bytes.length)
    expect(w.next()).toBe(true)
    expect(w.keyIs('result')).toBe(true)
    expect(w.valueEnd).toBe(-1)
    expect(w.next()).toBe(true)
    expect(w.keyIs('id')).toBe(true)
    expect(w.skipValue()).toBe(bytes.length - 1)
    expect(w.next()).toBe(false)
    expect(w.fault).toBeUndefined()
    expect(w.next()).toBe(false)
  })
})
