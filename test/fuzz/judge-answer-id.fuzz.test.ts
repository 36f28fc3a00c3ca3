/**
 * Fuzz suite, judgeAnswer's `id` (src/upstreams/pool/judge-answer.ts): told the call's id (as the request's parse
 * gives it), the verdict is the very one of the walk of the request, fault text included, for any answer and any
 * spelling of its id (escapes, exponents, `-0`, spaces). An answer isPlainResult takes, its id first or its result
 * first, is a result to the walk (and no error to isErrorAnswer). Seeded and bounded (FUZZ_SEED / FUZZ_RUNS to
 * explore).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isErrorAnswer } from '../../src/jsonrpc/envelope.ts'
import { isPlainResult, judgeAnswer } from '../../src/upstreams/pool/judge-answer.ts'
import { FUZZ } from './arbitraries.ts'

const same = (request: string, answer: string) => {
  const id = (JSON.parse(request) as { id: string | number | null }).id
  expect(judgeAnswer(Buffer.from(request), Buffer.from(answer), id), `${request} ${answer}`).toEqual(
    judgeAnswer(Buffer.from(request), Buffer.from(answer)),
  )
}

/** An id as a request or an answer may write it. */
const idText = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom('0', '-0', '1', '1.0', '1e0', '01', '-1', '10', '1234567890123456', '123456789012345', '9e999'),
  fc.string({ maxLength: 4 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('"a"', '"\\u0061"', '"\\"', '"a\\"b"', '"é"', '""', '"1"', 'null', 'nul', 'true', '{}', '[1]'),
)
const body = fc.constantFrom('"result":"0x0"', '"result":null', '"error":{"code":-32000,"message":"x"}', '"x":1', '')

describe('fuzz: judgeAnswer told the call id', () => {
  it('gives the verdict of the walk of the request', () => {
    fc.assert(
      fc.property(idText, idText, body, fc.constantFrom('', ' '), (reqId, answerId, rest, sp) => {
        let request: string
        try {
          JSON.parse(reqId)
          request = `{"jsonrpc":"2.0","id":${reqId},"method":"eth_getBalance","params":[]}`
        } catch {
          return
        }
        const comma = rest === '' ? '' : ','
        same(request, `{"jsonrpc":"2.0",${sp}"id":${sp}${answerId}${sp}${comma}${rest}}`)
        same(request, `{${rest}${comma}"id":${answerId}}`)
        same(request, `{"id":${answerId},${rest}`)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(3000) },
    )
  })

  it('isPlainResult: only answers the walk finds to be a result for the call', () => {
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      fc.constantFrom('', '"0x0', '[1', '{"a":1}}', '"a\\"', 'nul', '1 2', '"x"'),
    )
    const tail = fc.constantFrom('}', '}', ' }\n', '}}', '} x', '', ',"error":null}', ',"x":1}')
    fc.assert(
      fc.property(idText, idText, value, tail, (reqId, answerId, v, t) => {
        let id: string | number | null
        try {
          id = JSON.parse(reqId) as string | number | null
        } catch {
          return
        }
        const request = Buffer.from(`{"jsonrpc":"2.0","id":${reqId},"method":"eth_getBalance","params":[]}`)
        // The id first (EVM nodes), or the result first (Solana's Agave): `t` then ends the result or the id.
        for (const answer of [
          Buffer.from(`{"jsonrpc":"2.0","id":${answerId},"result":${v}${t}`),
          Buffer.from(`{"jsonrpc":"2.0","result":${v},"id":${answerId}${t}`),
          Buffer.from(`{"jsonrpc":"2.0","result":${v}${t.startsWith(',') ? t.slice(0, -1) : ''},"id":${answerId}}`),
        ]) {
          const walked = judgeAnswer(request, answer)
          if (isPlainResult(answer, id)) {
            expect(walked, answer.toString()).toBe('result')
            expect(isErrorAnswer(answer)).toBe(false)
          }
          same(request.toString(), answer.toString())
        }
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(3000) },
    )
    expect(isPlainResult(Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x0"}'), 1)).toBe(true)
    expect(isPlainResult(Buffer.from('{"jsonrpc":"2.0","id":"a","result":{"b":[]}} \n'), 'a')).toBe(true)
    expect(isPlainResult(Buffer.from('{"jsonrpc":"2.0","id":2,"result":"0x0"}'), 1)).toBe(false)
    expect(isPlainResult(Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x0"'), 1)).toBe(false)
    const solana = '{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.1.0","slot":341197053},"value":0},"id":1}'
    expect(isPlainResult(Buffer.from(solana), 1)).toBe(true)
    expect(isPlainResult(Buffer.from(solana.replace('"id":1', '"id":2')), 1)).toBe(false)
    expect(isPlainResult(Buffer.from(`${solana.slice(0, -1)},"error":null}`), 1)).toBe(false)
    expect(isPlainResult(Buffer.from(solana.slice(0, -1)), 1)).toBe(false)
  })

  it('takes the answer as the walk does for the ids a node writes back', () => {
    same('{"jsonrpc":"2.0","id":1,"method":"m"}', '{"jsonrpc":"2.0","id":1,"result":"0x0"}')
    same('{"jsonrpc":"2.0","id":1,"method":"m"}', '{"jsonrpc":"2.0","id":2,"result":"0x0"}')
    same('{"jsonrpc":"2.0","id":-0,"method":"m"}', '{"jsonrpc":"2.0","id":0,"result":"0x0"}')
    same('{"jsonrpc":"2.0","id":"ab","method":"m"}', '{"jsonrpc":"2.0","id":"ab","result":"0x0"}')
    same('{"jsonrpc":"2.0","id":"ab","method":"m"}', '{"jsonrpc":"2.0","id":"\\u0061b","result":"0x0"}')
    same('{"jsonrpc":"2.0","id":null,"method":"m"}', '{"jsonrpc":"2.0","id":null,"result":"0x0"}')
    same('{"jsonrpc":"2.0","id":1,"method":"m"}', '{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}')
    expect(judgeAnswer(Buffer.from('{"id":7}'), Buffer.from('{"id":7,"result":1}'), 7)).toBe('result')
  })
})
