import { describe, expect, it } from 'vitest'
import { answerSpans, isEmptyResult, resultAnswer, withId } from './cached-answer.ts'

const b = (s: string) => Buffer.from(s)

describe('answer splicing', () => {
  it('finds the top-level id and result whatever the key order, skipping look-alikes inside strings and nested values', () => {
    const text = '{"result":{"id":"x","s":"\\"id\\":9 }"},"jsonrpc":"2.0","id":"a}\\"b"}'
    const s = answerSpans(b(text))!
    expect(text.slice(s.idStart, s.idEnd)).toBe('"a}\\"b"')
    expect(text.slice(s.resultStart, s.resultEnd)).toBe('{"id":"x","s":"\\"id\\":9 }"}')
  })

  it('replaces the id and keeps every other byte of the node answer', () => {
    const text = '{"jsonrpc":"2.0","id":1,"result":{"number":"0x1"}}'
    const out = withId(b(text), answerSpans(b(text))!, 'client-7')
    expect(out.toString()).toBe('{"jsonrpc":"2.0","id":"client-7","result":{"number":"0x1"}}')
  })

  it('an error answer has no result span', () => {
    const s = answerSpans(b('{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"header not found"}}'))!
    expect(s.resultStart).toBe(-1)
    expect(s.idStart).toBeGreaterThan(0)
  })

  it('refuses what is not a JSON object', () => {
    expect(answerSpans(b('[{"id":1}]'))).toBeUndefined()
    expect(answerSpans(b('{"id":1,'))).toBeUndefined()
  })

  it('builds an answer from stored result bytes that parses to the same result with the client id', () => {
    const out = resultAnswer({ nested: 'no' } as never, b('{"a":[1,2]}'))
    expect(JSON.parse(out.toString())).toEqual({ jsonrpc: '2.0', id: { nested: 'no' }, result: { a: [1, 2] } })
    expect(JSON.parse(resultAnswer('é"', b('"0x1"')).toString()).id).toBe('é"')
  })

  it('writes every id as JSON.stringify does, with small and large results', () => {
    const big = b(`"0x${'ab'.repeat(400)}"`)
    for (const id of [0, 1, 9, 10, 11, 99, 100, 12345, 2 ** 53 - 1, -1, -0, -10, 'a', '', '12', null])
      for (const result of [b('"0x7a69"'), b('null'), big])
        expect(resultAnswer(id, result).toString()).toBe(
          `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result.toString()}}`,
        )
  })

  it('null, [] and {} are empty; "0x" and objects with members are not', () => {
    const check = (s: string) => isEmptyResult(b(s), 0, s.length)
    expect([check('null'), check('[]'), check('[ ]'), check('{}')]).toEqual([true, true, true, true])
    expect([check('"0x"'), check('[1]'), check('{"a":1}')]).toEqual([false, false, false])
  })
})
