/** src/jsonrpc/single-call.ts held to parseBody's exact answer, on fixed bodies and the fuzz suite's. */
import { isUtf8 } from 'node:buffer'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseBody } from '../../src/jsonrpc/envelope.ts'
import type { ParsedBody } from '../../src/jsonrpc/types.ts'
import { parseSingleCall } from '../../src/jsonrpc/single-call.ts'
import { bodyOf, chaos, entry, FUZZ, request } from './arbitraries.ts'

/**
 * A body as bytes goes through single-call.ts first; as a string (WebSocket) always the general way. The fast
 * path's parameters text, when it gives one, is exactly JSON.stringify of its parameters (the cache and dedup key).
 */
const same = (text: string | Buffer) => {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text
  const fast = parseSingleCall(bytes)
  if (fast !== undefined) expect(withoutText(fast)).toStrictEqual(parseBody(bytes.toString('latin1'), 100))
  // Bytes that are not UTF-8 are a parse error, as text they would not be: compared only when they are.
  if (isUtf8(bytes)) expect(withoutText(parseBody(bytes, 100))).toStrictEqual(parseBody(bytes.toString('utf8'), 100))
  return fast !== undefined
}

/** A single call's parse without its parameters text, which must be JSON.stringify of its parameters when given. */
function withoutText(parsed: ParsedBody): ParsedBody {
  if (parsed.kind !== 'single' || !parsed.entry.ok) return parsed
  const { paramsText, ...call } = parsed.entry.call
  if (paramsText !== undefined) expect(paramsText).toBe(JSON.stringify(call.params))
  return { ...parsed, entry: { ...parsed.entry, call } }
}

describe('plain single calls read in one pass', () => {
  it('answer exactly what the general parser answers, or leave the body to it', () => {
    const taken = [
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      ' { "method" : "eth_getBlockByNumber" , "params" : [ "0x1" , false ] , "id" : "a b" , "jsonrpc" : "2.0" } \n',
      '{"jsonrpc":"2.0","method":"eth_blockNumber"}',
      '{"jsonrpc":"2.0","id":null,"method":"x","params":{"a":[1,{"b":"]"}]}}',
      '{"jsonrpc":"2.0","id":-0,"method":"eth_chainId","params":[ ]}',
      '{"jsonrpc":"2.0","id":999999999999999,"method":"eth_chainId"}',
      // The deepest params parseBody takes (the call's object is one level), and brackets inside strings.
      `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":${'['.repeat(63)}${']'.repeat(63)}}`,
      `{"jsonrpc":"2.0","id":1,"method":"${'['.repeat(70)}","params":["${'{'.repeat(70)}"]}`,
    ]
    for (const t of taken) expect(same(t), t).toBe(true)
    const nine = '["1","2","3","4","5","6","7","8","9"]'
    const texts: [string, string | undefined | false][] = [
      ['{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xab","latest"]}', '["0xab","latest"]'],
      ['{"jsonrpc":"2.0","id":1,"method":"m","params":[["a"],true,false,null]}', '[["a"],true,false,null]'],
      // Flat: read from the text, without JSON.parse (up to 8 elements; longer ones are parsed, the same value).
      ['{"jsonrpc":"2.0","id":1,"method":"m","params":[true,false,null,"",")"]}', '[true,false,null,"",")"]'],
      [`{"jsonrpc":"2.0","id":1,"method":"m","params":${nine}}`, nine],
      ['{"jsonrpc":"2.0","id":1,"method":"m","params":["a",nul]}', false],
      ['{"jsonrpc":"2.0","id":1,"method":"m","params":["a",]}', false],
      ['{"jsonrpc":"2.0","id":1,"method":"m","params":["a",truex]}', false],
      ['{"jsonrpc":"2.0","id":1,"method":"m","params":[false"a"]}', false],
      ['{"jsonrpc":"2.0","id":1,"method":"m","params":["0xab", "latest"]}', undefined], // spaced: not as written
      ['{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}', undefined], // a number: 1.0 and 1 are one value
      ['{"jsonrpc":"2.0","id":1,"method":"m","params":[{"a":1}]}', undefined], // an object: keys may repeat
      ['{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"b"}}', undefined],
    ]
    for (const [body, text] of texts) {
      same(body)
      const fast = parseSingleCall(Buffer.from(body))
      expect(fast?.kind === 'single' && fast.entry.ok && fast.entry.call.paramsText, body).toBe(text)
    }
    const left = [
      '{"jsonrpc":"2.0","id":1.0,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":1e3,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":01,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":9999999999999999,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":1,"id":2,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","method":"a","method":"b"}',
      '{"jsonrpc":"2.0","id":"\\u0041","method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","x":1}',
      '{"jsonrpc":"2.0","id":1,"method":""}',
      '{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":null}',
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[1,]}',
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"} x',
      '{"jsonrpc":"2.0","id":1,"method":"eth\tchainId"}',
      '{"jsonrpc":"2.0","id":"\u00e9","method":"eth_chainId"}',
      `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":${'['.repeat(64)}${']'.repeat(64)}}`,
      '[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}]',
      '{"jsonrpc":"2.0","id":true,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":nul,"method":"eth_chainId"}',
    ]
    for (const t of left) expect(same(t), t).toBe(false)
  })

  it('agrees with the general parser on the fuzz suite`s calls, batches and chaos', () => {
    let taken = 0
    fc.assert(
      fc.property(
        fc.oneof(
          request.map(bodyOf),
          entry.map((e) => e.text),
          chaos,
        ),
        (body) => {
          if (same(body)) taken++
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(3000) },
    )
    expect(taken).toBeGreaterThan(100)
  })
})
