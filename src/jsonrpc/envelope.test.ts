import { describe, expect, it } from 'vitest'
import { errorCodeOf, isErrorAnswer, parseBody, validateCall } from './envelope.ts'

describe('JSON-RPC envelope', () => {
  it('parses single calls, batches and notifications', () => {
    const single = parseBody('{"jsonrpc":"2.0","id":"a","method":"m","params":[1]}', 10)
    expect(single).toEqual({ kind: 'single', entry: { ok: true, call: { id: 'a', hasId: true, method: 'm', params: [1] } } })
    const note = validateCall({ jsonrpc: '2.0', method: 'm' })
    expect(note).toEqual({ ok: true, call: { id: null, hasId: false, method: 'm', params: undefined } })
    const batch = parseBody('[{"jsonrpc":"2.0","id":1,"method":"m"},1]', 10)
    expect(batch.kind).toBe('batch')
  })

  it('rejects bad bodies with the right codes', () => {
    expect(parseBody('', 10)).toMatchObject({ kind: 'invalid', error: { code: 'PARSE_ERROR', rpcCode: -32700 } })
    expect(parseBody('{', 10)).toMatchObject({ kind: 'invalid', error: { code: 'PARSE_ERROR' } })
    expect(parseBody('[]', 10)).toMatchObject({ kind: 'invalid', error: { code: 'EMPTY_BATCH', rpcCode: -32600 } })
    expect(parseBody('[1,2,3]', 2)).toMatchObject({ kind: 'invalid', error: { code: 'BATCH_TOO_LARGE' } })
    expect(parseBody('"x"', 2)).toMatchObject({ kind: 'invalid', error: { code: 'INVALID_REQUEST' } })
    expect(validateCall({ jsonrpc: '2.0', id: 1.5e400, method: 'm' })).toMatchObject({ ok: false })
  })

  it('tells an error answer from a result without parsing it', () => {
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}')).toBe(true)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":1,"result":{"error":"inside"}}')).toBe(false)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":1,"result":"0x1"}')).toBe(false)
    expect(isErrorAnswer(Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x1"}'))).toBe(false)
    expect(isErrorAnswer(Buffer.from('{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted"}}'))).toBe(true)
    // Keys in any order, with spaces; ids and other members that merely say "error" or "result" do not count.
    expect(isErrorAnswer(' { "error" : {"code":-32000,"message":"x"}, "id": 1, "jsonrpc": "2.0" }')).toBe(true)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":"error","result":"0x1"}')).toBe(false)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":"\\"error\\":","result":"0x1"}')).toBe(false)
    expect(isErrorAnswer('{"id":{"nested":["error",{"error":1}]},"jsonrpc":"2.0","error":{"code":1,"message":"m"}}')).toBe(true)
    expect(isErrorAnswer('{"id":null,"x":-1.5e3,"ok":true,"result":null}')).toBe(false)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":1,"errors":[],"result":"0x1"}')).toBe(false)
    // Not a JSON-RPC answer object: passed through as no error.
    expect(isErrorAnswer('[{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}]')).toBe(false)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":1,"err')).toBe(false)
    expect(isErrorAnswer('')).toBe(false)
    expect(errorCodeOf('{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}')).toBe(-32601)
  })
})
