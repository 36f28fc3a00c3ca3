import { describe, expect, it } from 'vitest'
import { refusalOfAnswer, refusalOfError, refusalOfStatus } from './classify.ts'

describe('provider refusals are told apart from answers to the call', () => {
  it('by HTTP status: 429/402 rate-limited, 401/403 auth-failed, anything else is not a refusal', () => {
    expect([429, 402, 401, 403, 200, 400, 404, 413, 500, 503].map(refusalOfStatus)).toEqual([
      'rate-limited', 'rate-limited', 'auth-failed', 'auth-failed', undefined, undefined, undefined, undefined, undefined, undefined,
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
  ])('the client\'s own error %i "%s" is an answer, relayed', (code, message) => expect(refusalOfError(code, message)).toBeUndefined())

  it('in a batch, one refused entry refuses the whole answer; malformed JSON is left to the caller', () => {
    const batch = Buffer.from('[{"jsonrpc":"2.0","id":0,"result":"0x1"},{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"rate limit exceeded"}}]')
    expect(refusalOfAnswer(batch)).toEqual({ refusal: 'rate-limited', code: -32005 })
    expect(refusalOfAnswer(Buffer.from('[{"jsonrpc":"2.0","id":0,"error":{"code":3,"message":"execution reverted"}}]'))).toBeUndefined()
    expect(refusalOfAnswer(Buffer.from('{"error":'))).toBeUndefined()
  })
})
