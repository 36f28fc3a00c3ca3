import { describe, expect, test } from 'vitest'
import { checkCredentials, hashSecret } from './evaluate.ts'
import { defaultKeySecurity } from './types.ts'
import { OPTS, SECRET, sec, basic, call, evaluate } from './evaluate.test-support.ts'

describe("rejections (codes; Infura's bytes are written at the edge, src/gateway/http/infura-bodies.ts)", () => {
  test('error: a wrong secret is SECRET_INVALID', async () => {
    const r = await evaluate(sec({ secretHash: hashSecret(SECRET), requireSecret: true }), {
      authorization: basic('', 'nope'),
      calls: [call('eth_blockNumber')],
    })
    expect(r).toEqual({ code: 'SECRET_INVALID' })
  })

  test('error: an allowlist violation is KEY_SETTINGS_REJECTED', async () => {
    const r = await evaluate(sec({ lists: { methods: ['eth_chainId'] } }), { calls: [call('eth_blockNumber')] })
    expect(r).toEqual({ code: 'KEY_SETTINGS_REJECTED' })
  })

  test('error: a JWT required and missing is JWT_INVALID', async () => {
    const r = await evaluate(sec({ requireJwt: true }), { calls: [call('eth_blockNumber')] })
    expect(r).toEqual({ code: 'JWT_INVALID' })
  })
})

describe('fast path', () => {
  test('behavior: no settings at all lets everything through', async () => {
    expect(await evaluate(null, { calls: [call('eth_call')] })).toBeNull()
    expect(
      await evaluate(defaultKeySecurity(), { authorization: 'Bearer x.y.z', calls: [call('eth_call')] }),
    ).toBeNull()
  })

  test('behavior: a secret that is set but not required is not checked', async () => {
    const s = sec({ secretHash: hashSecret(SECRET) })
    expect(await evaluate(s, { authorization: basic('', 'wrong'), calls: [] })).toBeNull()
    expect(await evaluate(s, { calls: [] })).toBeNull()
  })
})

describe('secret', () => {
  const s = sec({ secretHash: hashSecret(SECRET), requireSecret: true })

  test('behavior: Basic auth with an empty user and the right secret passes', async () => {
    expect(await evaluate(s, { authorization: basic('', SECRET), calls: [call('eth_blockNumber')] })).toBeNull()
  })

  test('error: missing, wrong, non-empty user, bearer instead, garbage header: all 401 SECRET_INVALID', async () => {
    for (const authorization of [
      undefined,
      basic('', 'x'),
      basic('someone', SECRET),
      'Bearer abc',
      'Basic !!!',
      'Digest x',
    ]) {
      const r = await evaluate(s, { authorization, calls: [] })
      expect(r?.code, String(authorization)).toBe('SECRET_INVALID')
    }
  })

  test('error: a key that requires a secret but has none refuses everything', async () => {
    const r = await evaluate(sec({ requireSecret: true }), { authorization: basic('', SECRET), calls: [] })
    expect(r?.code).toBe('SECRET_INVALID')
  })

  test('behavior: the scheme name is case-insensitive', async () => {
    const header = basic('', SECRET).replace('Basic', 'basic')
    expect(await evaluate(s, { authorization: header, calls: [] })).toBeNull()
  })

  test('behavior: checkCredentials reports the secret credential only when valid', async () => {
    const open = sec({ secretHash: hashSecret(SECRET) })
    expect(await checkCredentials(open, { authorization: basic('', SECRET) }, OPTS)).toEqual({
      ok: true,
      credential: { kind: 'secret' },
    })
    expect(await checkCredentials(open, { authorization: basic('', 'bad') }, OPTS)).toEqual({
      ok: true,
      credential: { kind: 'none' },
    })
  })
})

describe('allowlist override by secret', () => {
  const lists = { origins: ['https://app.example.com'], methods: ['eth_chainId'] }

  test('behavior: a valid secret bypasses allowlists when the key says so', async () => {
    const s = sec({ secretHash: hashSecret(SECRET), secretOverridesAllowlists: true, lists })
    expect(await evaluate(s, { authorization: basic('', SECRET), calls: [call('eth_blockNumber')] })).toBeNull()
  })

  test('error: without the override switch the secret does not bypass', async () => {
    const s = sec({ secretHash: hashSecret(SECRET), lists })
    expect((await evaluate(s, { authorization: basic('', SECRET), calls: [call('eth_blockNumber')] }))?.code).toBe(
      'KEY_SETTINGS_REJECTED',
    )
  })

  test('error: a wrong secret does not bypass', async () => {
    const s = sec({ secretHash: hashSecret(SECRET), secretOverridesAllowlists: true, lists })
    expect((await evaluate(s, { authorization: basic('', 'bad'), calls: [call('eth_blockNumber')] }))?.code).toBe(
      'KEY_SETTINGS_REJECTED',
    )
  })
})
