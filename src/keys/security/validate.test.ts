import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { parseOriginEntry } from './origins.ts'
import { touchedAddresses } from './addresses.ts'
import { addAllowlistEntries, checkAllowlistEntry, checkJwtPublicKey, generateKeySecret } from './validate.ts'

describe('allowlist entries', () => {
  test('behavior: origin entry forms parse; junk does not', () => {
    expect(parseOriginEntry('https://*.example.com')).toEqual({ scheme: 'https', host: 'example.com', wildcard: true })
    expect(parseOriginEntry('mydapp.example.com')).toEqual({
      scheme: null,
      host: 'mydapp.example.com',
      wildcard: false,
    })
    expect(parseOriginEntry('localhost:3000')).toEqual({ scheme: null, host: 'localhost:3000', wildcard: false })
    expect(parseOriginEntry('https://')).toEqual({ scheme: 'https', host: null, wildcard: false })
    expect(parseOriginEntry('chrome-extension:')).toEqual({ scheme: 'chrome-extension', host: null, wildcard: false })
    for (const bad of [
      '',
      '*',
      'https://a.com/path',
      'https://*.*.com',
      'exa mple.com',
      'a.*.com',
      'https://user@a.com',
    ])
      expect(parseOriginEntry(bad), bad).toBeNull()
  })

  test('behavior: entries are normalised per type', () => {
    expect(checkAllowlistEntry('origins', ' HTTPS://App.Example.com/ ')).toEqual({
      ok: true,
      value: 'https://app.example.com',
    })
    expect(checkAllowlistEntry('origins', 'https://')).toEqual({ ok: true, value: 'https://' })
    expect(checkAllowlistEntry('addresses', '0xFE05A3E72235C9F92FD9F2282F41A8154D6D342B')).toEqual({
      ok: true,
      value: '0xfe05a3e72235c9f92fd9f2282f41a8154d6d342b',
    })
    expect(checkAllowlistEntry('methods', 'eth_call')).toEqual({ ok: true, value: 'eth_call' })
    expect(checkAllowlistEntry('methods', 'eth call').ok).toBe(false)
    expect(checkAllowlistEntry('userAgents', '  Android ')).toEqual({ ok: true, value: 'Android' })
    expect(checkAllowlistEntry('userAgents', '   ').ok).toBe(false)
  })

  test('error: more than 30 entries per type', () => {
    const thirty = Array.from({ length: 30 }, (_, i) => `m${i}`)
    expect(addAllowlistEntries('methods', [], thirty).ok).toBe(true)
    const r = addAllowlistEntries('methods', thirty, ['extra'])
    expect(r).toEqual({ ok: false, message: 'at most 30 entries per allowlist type' })
  })
})

describe('JWT public keys', () => {
  const pem = (type: 'rsa' | 'ec', opts: { modulusLength?: number; namedCurve?: string }) =>
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: opts.modulusLength! })
          .publicKey.export({ type: 'spki', format: 'pem' })
          .toString()
      : generateKeyPairSync('ec', { namedCurve: opts.namedCurve! })
          .publicKey.export({ type: 'spki', format: 'pem' })
          .toString()

  test('behavior: RS256 needs RSA ≥2048, ES256 needs P-256; fingerprint is base64 sha256 of the DER', () => {
    const rsa = pem('rsa', { modulusLength: 2048 })
    const ec = pem('ec', { namedCurve: 'prime256v1' })
    const r = checkJwtPublicKey('RS256', rsa)
    expect(r.ok && r.value.fingerprint).toMatch(/^[A-Za-z0-9+/]{43}=$/)
    expect(checkJwtPublicKey('ES256', ec).ok).toBe(true)
    expect(checkJwtPublicKey('ES256', rsa).ok).toBe(false)
    expect(checkJwtPublicKey('RS256', ec).ok).toBe(false)
    expect(checkJwtPublicKey('RS256', pem('rsa', { modulusLength: 1024 })).ok).toBe(false)
    expect(checkJwtPublicKey('ES256', pem('ec', { namedCurve: 'secp384r1' })).ok).toBe(false)
    expect(checkJwtPublicKey('HS256', rsa).ok).toBe(false)
    expect(checkJwtPublicKey('RS256', 'not a key').ok).toBe(false)
  })

  test('behavior: secrets are 32 lowercase hex characters', () => {
    expect(generateKeySecret()).toMatch(/^[0-9a-f]{32}$/)
  })
})

describe('touched addresses', () => {
  test('behavior: only address-taking methods are checked', () => {
    expect(touchedAddresses('eth_blockNumber', [])).toBeNull()
    expect(touchedAddresses('eth_getLogs', [{ address: [] }])).toEqual([])
    expect(touchedAddresses('eth_call', [{ to: null }])).toEqual([])
  })
})
