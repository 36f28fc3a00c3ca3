import { describe, expect, it } from 'vitest'
import { errorCodeOf, isErrorAnswer, parseBody, validateCall } from './envelope.ts'

describe('JSON-RPC envelope', () => {
  it('parses single calls, batches and notifications', () => {
    const single = parseBody('{"jsonrpc":"2.0","id":"a","method":"m","params":[1]}', 10)
    expect(single).toEqual({
      kind: 'single',
      entry: { ok: true, call: { id: 'a', hasId: true, method: 'm', params: [1] } },
    })
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

  it('error: ids a node would answer with id null are refused here, with id null', () => {
    for (const id of [
      '1.5',
      '1e30',
      '1.0',
      '1e3',
      '-1E2',
      '18446744073709551615',
      '9007199254740993',
      '"\\ud800"',
      '"a\\udc00"',
      'true',
      '{}',
    ]) {
      const out = parseBody(`{"jsonrpc":"2.0","id":${id},"method":"eth_chainId","params":[]}`, 10)
      expect(out, id).toMatchObject({
        kind: 'single',
        entry: { ok: false, id: null, error: { code: 'INVALID_REQUEST', httpStatus: 400 } },
      })
    }
    expect(parseBody('{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}', 10)).toMatchObject({
      kind: 'single',
      entry: { ok: false, id: null },
    })
    for (const id of ['0', '-1', '-0', '9007199254740991', '"x"', '"\\ud83d\\ude00"', 'null', ' 7 '])
      expect(parseBody(`{"jsonrpc":"2.0","id":${id},"method":"m"}`, 10), id).toMatchObject({
        kind: 'single',
        entry: { ok: true },
      })
  })

  it("error: depth and unpaired surrogates are refused with the call's own id; other entries untouched", () => {
    const deep = (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`
    // The call object is level 1, so params may hold 62 more levels.
    expect(parseBody(`{"jsonrpc":"2.0","id":4,"method":"m","params":${deep(63)}}`, 10)).toMatchObject({
      entry: { ok: true },
    })
    expect(parseBody(`{"jsonrpc":"2.0","id":4,"method":"m","params":${deep(64)}}`, 10)).toMatchObject({
      entry: { ok: false, id: 4, error: { message: 'Invalid request: nested deeper than 64 levels' } },
    })
    const batch = parseBody(
      `[{"jsonrpc":"2.0","id":"a","method":"m","params":${deep(64)}},` +
        `{"jsonrpc":"2.0","id":"b","method":"m","params":${deep(63)}},{"jsonrpc":"2.0","id":1.5,"method":"m"},` +
        '{"jsonrpc":"2.0","id":"c","method":"m","params":["\\udfff x"]},' +
        '{"jsonrpc":"2.0","id":"d","method":"m","params":["\\ud83d\\ude00", "\\\\ud800"]}]',
      10,
    )
    expect(batch.kind === 'batch' && batch.entries.map((e) => [e.ok, e.ok ? e.call.id : e.id])).toEqual([
      [false, 'a'],
      [true, 'b'],
      [false, null],
      [false, 'c'],
      [true, 'd'],
    ])
    // Text given as a string (WebSocket) may hold raw code units.
    expect(parseBody('{"jsonrpc":"2.0","id":9,"method":"m","params":["\ud800"]}', 10)).toMatchObject({
      entry: { ok: false, id: 9 },
    })
    expect(parseBody('{"jsonrpc":"2.0","id":9,"method":"m","params":["\ud83d\ude00"]}', 10)).toMatchObject({
      entry: { ok: true },
    })
    // Bytes that are not UTF-8 are not JSON text.
    const bad = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"m","params":["'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('"]}'),
    ])
    expect(parseBody(bad, 10)).toMatchObject({ kind: 'invalid', error: { code: 'PARSE_ERROR' } })
    // Keys and strings that merely contain "id", quotes, backslashes or brackets do not confuse the scan.
    const tricky =
      '[{"jsonrpc":"2.0","id":1,"method":"m","params":["a\\"[[[{", "\\\\", "\\\\\\"]]"]},' +
      `{"jsonrpc":"2.0","id":2.5,"method":"m","params":[${'['.repeat(70)}${']'.repeat(70)}]}]`
    const trickyOut = parseBody(tricky, 10)
    expect(trickyOut.kind === 'batch' && trickyOut.entries.map((e) => [e.ok, e.ok ? e.call.id : e.id])).toEqual([
      [true, 1],
      [false, null],
    ])
    expect(
      parseBody('{"jsonrpc":"2.0","params":[{"id":1.5,"x":"[[[{"}],"idx":2.5,"id":3,"method":"m"}', 10),
    ).toMatchObject({ entry: { ok: true, call: { id: 3 } } })
  })

  it('tells an error answer from a result without parsing it', () => {
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}')).toBe(true)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":1,"result":{"error":"inside"}}')).toBe(false)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":1,"result":"0x1"}')).toBe(false)
    expect(isErrorAnswer(Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x1"}'))).toBe(false)
    expect(
      isErrorAnswer(Buffer.from('{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted"}}')),
    ).toBe(true)
    // Keys in any order, with spaces; ids and other members that merely say "error" or "result" do not count.
    expect(isErrorAnswer(' { "error" : {"code":-32000,"message":"x"}, "id": 1, "jsonrpc": "2.0" }')).toBe(true)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":"error","result":"0x1"}')).toBe(false)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":"\\"error\\":","result":"0x1"}')).toBe(false)
    expect(
      isErrorAnswer('{"id":{"nested":["error",{"error":1}]},"jsonrpc":"2.0","error":{"code":1,"message":"m"}}'),
    ).toBe(true)
    expect(isErrorAnswer('{"id":null,"x":-1.5e3,"ok":true,"result":null}')).toBe(false)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":1,"errors":[],"result":"0x1"}')).toBe(false)
    // Not a JSON-RPC answer object: passed through as no error.
    expect(isErrorAnswer('[{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}]')).toBe(false)
    expect(isErrorAnswer('{"jsonrpc":"2.0","id":1,"err')).toBe(false)
    expect(isErrorAnswer('')).toBe(false)
    expect(errorCodeOf('{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}')).toBe(-32601)
  })
})
