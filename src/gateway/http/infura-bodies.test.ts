import { describe, expect, it } from 'vitest'
import { ERROR_REGISTRY } from '../../errors/registry.ts'
import { BODIES, limitAnswers, refusal, settingsRejectedAnswers } from './infura-bodies.ts'

describe("Infura's bodies, written in one place", () => {
  it('key-security refusals are byte for byte what Infura sends', () => {
    expect(refusal('SECRET_INVALID')).toMatchObject({ status: 401, body: 'invalid project id or project secret' })
    expect(refusal('JWT_INVALID')).toMatchObject({ status: 401, body: 'invalid JWT' })
    const forbidden = refusal('KEY_SETTINGS_REJECTED')
    expect(forbidden).toMatchObject({ status: 403, contentType: 'text/plain; charset=utf-8' })
    expect(forbidden.body).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32002,"message":"rejected due to project ID settings"}}\n',
    )
    expect(Buffer.byteLength(BODIES.KEY_SETTINGS_REJECTED)).toBe(90)
    expect(JSON.parse(forbidden.body)).not.toHaveProperty('id')
  })

  it('an unknown key carries WWW-Authenticate; an unknown network names the known ones', () => {
    expect(refusal('KEY_INVALID')).toEqual({
      status: 401,
      contentType: 'text/plain; charset=utf-8',
      body: 'invalid project id\n',
      headers: { 'www-authenticate': 'Basic realm="Auth failure, invalid project id"' },
    })
    expect(refusal('NETWORK_UNKNOWN', 'unknown network "x": known networks are a').body).toBe(
      'unknown network "x": known networks are a\n',
    )
  })

  it('limit answers: one per id, Infura members in order', () => {
    expect(limitAnswers('DAILY_CREDITS_EXHAUSTED', [7], false)).toBe(
      '{"jsonrpc":"2.0","id":7,"error":{"code":402,"event":-33000,"message":"Payment Required","details":"You have ' +
        'reached your daily credit limit. To continue making requests, upgrade your plan or purchase additional ' +
        'credits"}}',
    )
    const batch = JSON.parse(limitAnswers('KEY_THROUGHPUT_EXCEEDED', ['a', null], true))
    expect(batch.map((a: { id: unknown; error: { event: number } }) => [a.id, a.error.event])).toEqual([
      ['a', -33300],
      [null, -33300],
    ])
    expect(JSON.parse(settingsRejectedAnswers([1], false))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32002, message: 'rejected due to project ID settings' },
    })
  })

  it('every whole-request refusal has a status from the registry and a body', () => {
    for (const code of Object.keys(ERROR_REGISTRY) as (keyof typeof ERROR_REGISTRY)[]) {
      const r = refusal(code)
      expect(r.status, code).toBe(ERROR_REGISTRY[code].httpStatus)
      expect(r.body.length, code).toBeGreaterThan(0)
    }
  })
})
