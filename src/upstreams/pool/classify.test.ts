import { describe, expect, it } from 'vitest'
import { judgeAnswer, refusalOfAnswer, refusalOfError, refusalOfStatus } from './classify.ts'
import { isClientsError, notClientsOwn } from './error-status.ts'
import { weakAnswer } from './retry-policy.ts'

describe('provider refusals are told apart from answers to the call', () => {
  it('by HTTP status: 429/402 rate-limited, 401/403 auth-failed, anything else is not a refusal', () => {
    expect([429, 402, 401, 403, 200, 400, 404, 413, 500, 503].map(refusalOfStatus)).toEqual([
      'rate-limited',
      'rate-limited',
      'auth-failed',
      'auth-failed',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ])
  })

  it.each([
    [-32005, 'daily request count exceeded, request rate limited', 'rate-limited'],
    [-32005, 'project ID request rate exceeded', 'rate-limited'],
    [-32005, 'limit exceeded', 'rate-limited'],
    [429, 'Your app has exceeded its compute units per second capacity', 'rate-limited'],
    [-32097, 'request limit reached', 'rate-limited'],
    [-32001, 'project ID does not have access to this network', 'auth-failed'],
    [-32000, 'invalid project id', 'auth-failed'],
    [403, 'API key is disabled', 'auth-failed'],
  ])('provider error %i "%s" → %s', (code, message, kind) => expect(refusalOfError(code, message)).toBe(kind))

  it.each([
    [-32005, 'query returned more than 10000 results. Try with this block range [0x0, 0x1F].'],
    [-32000, 'execution reverted'],
    [-32000, 'nonce too low'],
    [-32000, 'header not found'],
    [-32602, 'invalid argument 0: rate limit is not a hex string'], // not a provider code
    [3, 'execution reverted: limit exceeded'],
    [-32005, 'something else entirely'],
  ])('the client\'s own error %i "%s" is an answer, relayed', (code, message) =>
    expect(refusalOfError(code, message)).toBeUndefined(),
  )

  it('in a batch, one refused entry refuses the whole answer; malformed JSON is left to the caller', () => {
    const batch = Buffer.from(
      '[{"jsonrpc":"2.0","id":0,"result":"0x1"},{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"rate limit ' +
        'exceeded"}}]',
    )
    expect(refusalOfAnswer(batch)).toEqual({ refusal: 'rate-limited', code: -32005 })
    expect(
      refusalOfAnswer(Buffer.from('[{"jsonrpc":"2.0","id":0,"error":{"code":3,"message":"execution reverted"}}]')),
    ).toBeUndefined()
    expect(refusalOfAnswer(Buffer.from('{"error":'))).toBeUndefined()
  })
})

describe('an answer is a JSON-RPC answer to the request, or not passed on (judgeAnswer)', () => {
  const one =
    '{"jsonrpc":"2.0","id":7,"method":"eth_getBalance",' +
    '"params":["0x0000000000000000000000000000000000000001","latest"]}'
  const judge = (answer: string, request = one) => judgeAnswer(request, Buffer.from(answer))

  it.each([
    ['a result', '{"jsonrpc":"2.0","id":7,"result":"0x1"}', 'result'],
    ['another key order, spaces', ' { "result" : {"a":[1,{"b":"}"}]} , "id" : 7 , "jsonrpc":"2.0" }\n', 'result'],
    [
      'an error',
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"execution reverted","data":"0x"}}',
      'error',
    ],
    ['"error": null beside a result', '{"jsonrpc":"2.0","id":7,"result":"0x1","error":null}', 'result'],
    [
      '"result": null beside an error',
      '{"jsonrpc":"2.0","id":7,"result":null,"error":{"code":3,"message":"x"}}',
      'error',
    ],
    [
      'an error with a null id (the node could not read the call: anvil over 2 MiB)',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too large"}}',
      'error',
    ],
  ])('%s → %s', (_name, answer, verdict) => expect(judge(answer)).toBe(verdict))

  it.each([
    ['not JSON', 'hello', 'not a JSON object'],
    ['an HTML page', '<html><body>502 Bad Gateway</body></html>', 'not a JSON object'],
    ['an empty body', '', 'an empty body'],
    ['garbage after a brace', '{garbage', 'not JSON'],
    ['truncated in a string', '{"jsonrpc":"2.0","id":7,"result":"0x', 'cut short'],
    ['truncated after a member', '{"jsonrpc":"2.0","id":7,"result":"0x1"', 'cut short'],
    ['truncated in a nested object', '{"jsonrpc":"2.0","id":7,"result":{"a":{"b":1}}', 'cut short'],
    ['bytes after the object', '{"jsonrpc":"2.0","id":7,"result":"0x1"}{"x":1}', 'bytes after the answer'],
    ['the wrong id', '{"jsonrpc":"2.0","id":999,"result":"0x1"}', 'id 999 for a call with id 7'],
    [
      'the wrong id on an error',
      '{"jsonrpc":"2.0","id":8,"error":{"code":3,"message":"x"}}',
      'id 8 for a call with id 7',
    ],
    ['a null id on a result', '{"jsonrpc":"2.0","id":null,"result":"0x1"}', 'id null for a call with id 7'],
    ['a string id for a number', '{"jsonrpc":"2.0","id":"7","result":"0x1"}', 'id "7" for a call with id 7'],
    ['no id', '{"jsonrpc":"2.0","result":"0x1"}', 'no id'],
    ['neither result nor error', '{"jsonrpc":"2.0","id":7}', 'neither a result nor an error'],
    [
      'both result and error',
      '{"jsonrpc":"2.0","id":7,"result":"0x1","error":{"code":1,"message":"x"}}',
      'both a result and an error',
    ],
    ['an empty error object', '{"jsonrpc":"2.0","id":7,"error":{}}', 'an error without an integer code'],
    ['an error without a message', '{"jsonrpc":"2.0","id":7,"error":{"code":-32000}}', 'an error without a message'],
    ['an error that is a string', '{"jsonrpc":"2.0","id":7,"error":"boom"}', 'an error that is not an object'],
    ['a JSON body that is not JSON-RPC', '{"message":"not found"}', 'neither a result nor an error'],
    ['an array for a single call', '[{"jsonrpc":"2.0","id":7,"result":"0x1"}]', 'not a JSON object'],
  ])('%s → fault "%s"', (_name, answer, fault) => expect(judge(answer)).toEqual({ fault }))

  it('the same id written another way is the same id; a notification expects nothing', () => {
    expect(judge('{"jsonrpc":"2.0","id":"ab","result":1}', '{"jsonrpc":"2.0","id":"\\u0061b","method":"m"}')).toBe(
      'result',
    )
    expect(judge('', '{"jsonrpc":"2.0","method":"m"}')).toBe('result')
    expect(judge('<html>', '{"jsonrpc":"2.0","method":"m"}')).toBe('result')
  })

  it('a long answer whose result comes last is checked at both ends: cut short is caught, a whole one passes', () => {
    const big = `{"jsonrpc":"2.0","id":7,"result":[${Array.from({ length: 20_000 }, (_, i) => `"0x${i}"`).join(',')}]}`
    expect(big.length).toBeGreaterThan(64 * 1024)
    expect(judge(big)).toBe('result')
    expect(judge(big.slice(0, -1))).toEqual({ fault: expect.any(String) })
    expect(judge(big.slice(0, 70_000))).toEqual({ fault: expect.any(String) })
    expect(judge(big.replace('"id":7', '"id":8'))).toEqual({ fault: 'id 8 for a call with id 7' })
  })

  describe('batches', () => {
    const batch =
      '[{"jsonrpc":"2.0","id":0,"method":"a"},{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","id":1,"method":"b"}]'
    const judgeBatch = (answer: string) => judgeAnswer(batch, Buffer.from(answer))

    it('one answer per call with an id, in any order', () => {
      expect(
        judgeBatch(
          '[{"jsonrpc":"2.0","id":1,"result":"0x2"},{"jsonrpc":"2.0","id":0,"error":{"code":3,"message":"reverted"}}]',
        ),
      ).toBe('result')
      // only notifications: no content
      expect(judgeAnswer('[{"jsonrpc":"2.0","method":"note"}]', Buffer.from(''))).toBe('result')
    })

    it.each([
      ['an entry missing', '[{"jsonrpc":"2.0","id":0,"result":"0x1"}]', 'no answer for 1 of the 2 calls'],
      [
        'an extra entry',
        '[{"jsonrpc":"2.0","id":0,"result":"0x1"},{"jsonrpc":"2.0","id":1,"result":"0x2"},' +
          '{"jsonrpc":"2.0","id":5,"result":"0x3"}]',
        'an answer for id 5, not asked or given twice',
      ],
      [
        'a duplicate entry',
        '[{"jsonrpc":"2.0","id":0,"result":"0x1"},{"jsonrpc":"2.0","id":0,"result":"0x1"}]',
        'an answer for id 0, not asked or given twice',
      ],
      [
        'an entry without result or error',
        '[{"jsonrpc":"2.0","id":0,"result":"0x1"},{"jsonrpc":"2.0","id":1}]',
        'a batch entry with neither a result nor an error',
      ],
      [
        'an entry that is not an object',
        '[{"jsonrpc":"2.0","id":0,"result":"0x1"},7]',
        'a batch entry with not a JSON object',
      ],
      [
        'a single object',
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}',
        "not an array for a batch (the node's error: batch requests are not supported)",
      ],
      ['an empty body', '', 'an empty answer to a batch'],
      ['cut short', '[{"jsonrpc":"2.0","id":0,"result":"0x1"},{"jsonrpc":"2.0","id":1,"res', 'cut short'],
      [
        'an unclosed array',
        '[{"jsonrpc":"2.0","id":0,"result":"0x1"},{"jsonrpc":"2.0","id":1,"result":"0x1"}',
        'cut short',
      ],
    ])('%s → fault "%s"', (_name, answer, fault) => expect(judgeBatch(answer)).toEqual({ fault }))
  })
})

describe("an answer under an HTTP error status (4xx/5xx): the client's own JSON-RPC error is an answer, anything else a node failure", () => {
  it.each([
    [3, 'execution reverted: Ownable: caller is not the owner'],
    [-32000, 'execution reverted'],
    [-32015, 'VM execution error: revert'],
    [-32603, "Error: VM Exception while processing transaction: reverted with reason string 'no'"], // hardhat's code
    [-32602, 'invalid argument 0: hex string has length 3, want 40 for common.Address'],
    [-32602, 'Invalid params'],
    [-32600, 'invalid request'],
    [-32601, 'the method eth_foo does not exist/is not available'],
    [-32000, 'the method trace_block is not supported'],
    [-32000, 'nonce too low: next nonce 5, tx nonce 1'],
    [-32000, 'insufficient funds for gas * price + value'],
    [-32000, 'intrinsic gas too low'],
    [-32000, 'already known'],
    [-32000, 'replacement transaction underpriced'],
    [-32000, 'invalid sender'],
    [-32000, 'tx fee (1.50 ether) exceeds the configured cap (1.00 ether)'],
    [-32005, 'query returned more than 10000 results'],
  ])('%i "%s" is the client\'s', (code, message) => expect(isClientsError(code, message)).toBe(true))

  it.each([
    [-32603, 'internal error'],
    [-32000, 'header not found'],
    [-32000, 'missing trie node 5e2d… (path )'],
    [-32000, 'unknown block'],
    [-32700, 'Parse error'], // the gateway sent valid JSON
    [-32000, 'filter not found'],
    [-32000, 'timeout'],
    [-32603, 'bad gateway'],
  ])('%i "%s" is not', (code, message) => expect(isClientsError(code, message)).toBe(false))

  const one = '{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{},"latest"]}'
  /** As member.ts reads it: a JSON-RPC answer to the call first, then the client's own errors only. */
  const relayed = (answer: string, request = one) => {
    const v = judgeAnswer(request, Buffer.from(answer))
    return typeof v === 'object' ? v : (notClientsOwn(Buffer.from(answer)) ?? v)
  }
  const revert = '{"jsonrpc":"2.0","id":7,"error":{"code":3,"message":"execution reverted: no","data":"0x08c379a0"}}'

  it('single answers', () => {
    expect(relayed(revert)).toBe('error')
    expect(relayed('{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"invalid params"}}')).toBe('error')
    expect(relayed('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}')).toBe('error')
    expect(relayed('{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"internal error"}}')).toBe(
      "the node's error: -32603 internal error",
    )
    expect(relayed('{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"header not found"}}')).toBe(
      "the node's error: -32000 header not found",
    )
    expect(relayed('{"jsonrpc":"2.0","id":7,"result":"0x1"}')).toBe('a result under an error status')
    expect(relayed('<html><body>502 Bad Gateway</body></html>')).toEqual({ fault: 'not a JSON object' })
    expect(relayed('')).toEqual({ fault: 'an empty body' })
    // another call's revert
    expect(relayed(revert.replace('"id":7', '"id":8'))).toEqual({ fault: 'id 8 for a call with id 7' })
    expect(notClientsOwn(Buffer.from(`{"error":{"code":-32603,"message":"${'x'.repeat(500)}"}}`))).toHaveLength(
      "the node's error: -32603 ".length + 200,
    )
  })

  it("batches: at least one error entry, and every error entry the client's", () => {
    const batch = '[{"jsonrpc":"2.0","id":0,"method":"eth_call"},{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}]'
    const entries = (...e: string[]) => `[${e.join(',')}]`
    const ok = '{"jsonrpc":"2.0","id":1,"result":"0x10"}'
    expect(
      relayed(entries('{"jsonrpc":"2.0","id":0,"error":{"code":3,"message":"execution reverted"}}', ok), batch),
    ).toBe('result')
    expect(
      relayed(
        entries(
          '{"jsonrpc":"2.0","id":0,"error":{"code":3,"message":"execution reverted"}}',
          '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}',
        ),
        batch,
      ),
    ).toBe('result')
    expect(
      relayed(
        entries(
          '{"jsonrpc":"2.0","id":0,"error":{"code":3,"message":"execution reverted"}}',
          '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}',
        ),
        batch,
      ),
    ).toBe("the node's error: -32603 internal error")
    expect(relayed(entries('{"jsonrpc":"2.0","id":0,"result":"0x"}', ok), batch)).toBe('a result under an error status')
    expect(
      relayed(entries('{"jsonrpc":"2.0","id":0,"error":{"code":3,"message":"execution reverted"}}'), batch),
    ).toEqual({ fault: 'no answer for 1 of the 2 calls' })
  })

  it('-32601 under an error status is an answer, and (a read) is first tried on another node like on HTTP 200', () => {
    const noMethod = Buffer.from(
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"the method trace_block does not exist/is not ' +
        'available"}}',
    )
    expect(notClientsOwn(noMethod)).toBeUndefined()
    expect(weakAnswer('trace_block', noMethod)).toBe('missing')
    expect(weakAnswer('eth_call', Buffer.from(revert))).toBeUndefined()
  })
})
