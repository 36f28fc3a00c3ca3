import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose'
import { beforeAll, describe, expect, test } from 'vitest'
import { evaluateKeyAccess } from './evaluate.ts'
import type { JwtPublicKey } from './types.ts'
import { checkJwtPublicKey } from './validate.ts'
import { NOW, SECRET, ADDR_A, ADDR_B, sec, basic, call, evaluate } from './evaluate.test-support.ts'

describe('JWT', () => {
  let rsa: { privateKey: CryptoKey; key: JwtPublicKey }
  let ec: { privateKey: CryptoKey; key: JwtPublicKey }
  let other: { privateKey: CryptoKey; key: JwtPublicKey }

  async function makeKey(alg: 'RS256' | 'ES256', id: string) {
    const pair = await generateKeyPair(alg, { extractable: true })
    const pem = await exportSPKI(pair.publicKey)
    const checked = checkJwtPublicKey(alg, pem)
    if (!checked.ok) throw new Error(checked.message)
    return { privateKey: pair.privateKey, key: { id, name: id, ...checked.value } }
  }

  beforeAll(async () => {
    rsa = await makeKey('RS256', 'rsa-1')
    ec = await makeKey('ES256', 'ec-1')
    other = await makeKey('RS256', 'rsa-1')
  })

  async function sign(
    signer: { privateKey: CryptoKey; key: JwtPublicKey },
    claims: Record<string, unknown> = {},
    opts: { aud?: string | null; exp?: number | null; kid?: string; alg?: string } = {},
  ) {
    const jwt = new SignJWT(claims).setProtectedHeader({
      alg: opts.alg ?? signer.key.alg,
      typ: 'JWT',
      kid: opts.kid ?? signer.key.id,
    })
    if (opts.aud !== null) jwt.setAudience(opts.aud ?? 'chaingate')
    if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? Math.floor(NOW / 1000) + 300)
    return jwt.sign(signer.privateKey)
  }

  const required = () => sec({ requireJwt: true, jwtKeys: [rsa.key, ec.key] })
  const bearer = (t: string) => ({ authorization: `Bearer ${t}`, calls: [call('eth_blockNumber')] })

  test('behavior: a valid RS256 token passes', async () => {
    expect(await evaluate(required(), bearer(await sign(rsa)))).toBeNull()
  })

  test('behavior: a valid ES256 token passes', async () => {
    expect(await evaluate(required(), bearer(await sign(ec)))).toBeNull()
  })

  test('error: expired token → 401 invalid JWT', async () => {
    const r = await evaluate(required(), bearer(await sign(rsa, {}, { exp: Math.floor(NOW / 1000) - 1 })))
    expect(r?.code).toBe('JWT_INVALID')
    expect(r?.code).toBe('JWT_INVALID')
  })

  test('error: token without exp is refused', async () => {
    expect((await evaluate(required(), bearer(await sign(rsa, {}, { exp: null }))))?.code).toBe('JWT_INVALID')
  })

  test('error: wrong or missing audience is refused', async () => {
    expect((await evaluate(required(), bearer(await sign(rsa, {}, { aud: 'infura.io' }))))?.code).toBe('JWT_INVALID')
    expect((await evaluate(required(), bearer(await sign(rsa, {}, { aud: null }))))?.code).toBe('JWT_INVALID')
  })

  test('behavior: the audience is a config value', async () => {
    const t = await sign(rsa, {}, { aud: 'infura.io' })
    expect(await evaluateKeyAccess(required(), bearer(t), { jwtAudience: 'infura.io', now: NOW })).toBeNull()
  })

  test('error: unknown kid is refused', async () => {
    expect((await evaluate(required(), bearer(await sign(rsa, {}, { kid: 'nope' }))))?.code).toBe('JWT_INVALID')
  })

  test('error: right kid, signed by another private key, is refused', async () => {
    expect((await evaluate(required(), bearer(await sign(other))))?.code).toBe('JWT_INVALID')
  })

  test('error: header alg different from the registered key alg is refused', async () => {
    // ES256 signature presented under the RSA key's kid.
    expect((await evaluate(required(), bearer(await sign(ec, {}, { kid: 'rsa-1' }))))?.code).toBe('JWT_INVALID')
  })

  test('error: algorithms other than RS256/ES256 are refused (HS256, none)', async () => {
    const hs = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
      .setAudience('chaingate')
      .setExpirationTime(Math.floor(NOW / 1000) + 60)
      .sign(new TextEncoder().encode('0123456789abcdef0123456789abcdef'))
    expect((await evaluate(required(), bearer(hs)))?.code).toBe('JWT_INVALID')
    const header = Buffer.from(JSON.stringify({ alg: 'none', kid: 'rsa-1' })).toString('base64url')
    const body = Buffer.from(JSON.stringify({ aud: 'chaingate', exp: NOW / 1000 + 60 })).toString('base64url')
    expect((await evaluate(required(), bearer(`${header}.${body}.`)))?.code).toBe('JWT_INVALID')
  })

  test('error: garbage token, Basic auth or no header when JWT is required', async () => {
    expect((await evaluate(required(), bearer('not.a.jwt')))?.code).toBe('JWT_INVALID')
    expect((await evaluate(required(), { authorization: basic('', SECRET), calls: [] }))?.code).toBe('JWT_INVALID')
    expect((await evaluate(required(), { calls: [] }))?.code).toBe('JWT_INVALID')
  })

  test('behavior: JWT claims override the key allowlist of the same type, others still apply', async () => {
    const s = sec({ jwtKeys: [rsa.key], lists: { methods: ['eth_chainId'], origins: ['https://a.com'] } })
    const t = await sign(rsa, { methods: ['eth_blockNumber'] })
    expect(
      await evaluate(s, { authorization: `Bearer ${t}`, origin: 'https://a.com', calls: [call('eth_blockNumber')] }),
    ).toBeNull()
    expect(
      (await evaluate(s, { authorization: `Bearer ${t}`, origin: 'https://a.com', calls: [call('eth_chainId')] }))
        ?.code,
    ).toBe('KEY_SETTINGS_REJECTED')
    expect(
      (await evaluate(s, { authorization: `Bearer ${t}`, origin: 'https://b.com', calls: [call('eth_blockNumber')] }))
        ?.code,
    ).toBe('KEY_SETTINGS_REJECTED')
  })

  test('behavior: JWT allowlist claims restrict a key without "require JWT"', async () => {
    const s = sec({ jwtKeys: [rsa.key] })
    const t = await sign(rsa, { addresses: [ADDR_A], user_agents: ['viem'], origins: ['https://a.com'] })
    const req = (params: unknown[], userAgent = 'viem/2') => ({
      authorization: `Bearer ${t}`,
      origin: 'https://a.com',
      userAgent,
      calls: [call('eth_getBalance', params)],
    })
    expect(await evaluate(s, req([ADDR_A, 'latest']))).toBeNull()
    expect((await evaluate(s, req([ADDR_B, 'latest'])))?.code).toBe('KEY_SETTINGS_REJECTED')
    expect((await evaluate(s, req([ADDR_A, 'latest'], 'curl')))?.code).toBe('KEY_SETTINGS_REJECTED')
    // Without a token the key has no restrictions.
    expect(await evaluate(s, { calls: [call('eth_getBalance', [ADDR_B, 'latest'])] })).toBeNull()
  })

  test('error: malformed allowlist claims make the token invalid', async () => {
    const t = await sign(rsa, { methods: 'eth_blockNumber' })
    expect((await evaluate(required(), bearer(t)))?.code).toBe('JWT_INVALID')
  })
})
