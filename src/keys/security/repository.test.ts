import { exportSPKI, generateKeyPair } from 'jose'
import { afterEach, beforeEach, expect, test } from 'vitest'
import type { OpenedDatabase } from '../../db/database.ts'
import { describeEachDatabase } from '../../../test/support/databases.ts'
import { readSettingsVersion } from '../../db/settings-version.ts'
import { evaluateKeyAccess, hashSecret } from './evaluate.ts'
import {
  addAllowlistEntriesTo,
  addJwtKey,
  getKeySecurity,
  loadAllKeySecurity,
  removeAllowlistEntry,
  removeJwtKey,
  rotateKeySecret,
  setSecurityFlags,
} from './repository.ts'

const NOW = 1_700_000_000_000

describeEachDatabase('key security repository', (open) => {
  let opened: OpenedDatabase
  beforeEach(async () => {
    opened = await open()
    await opened.db
      .insertInto('accounts')
      .values({ id: 'acc', email: 'a@b.c', plan: 'free', created_at: NOW })
      .execute()
    await opened.db
      .insertInto('api_keys')
      .values({
        id: 'k1',
        key: 'a'.repeat(32),
        account_id: 'acc',
        name: 'one',
        created_at: NOW,
        revoked_at: null,
        credits_per_second: null,
        credits_per_day: null,
      })
      .execute()
  })
  afterEach(async () => opened.close())

  test('behavior: a key without a row has default settings and is absent from loadAllKeySecurity', async () => {
    expect((await getKeySecurity(opened.db, 'k1')).requireSecret).toBe(false)
    expect((await loadAllKeySecurity(opened.db)).size).toBe(0)
  })

  test('behavior: rotating the secret stores only its sha256 and bumps settings_version', async () => {
    const before = await readSettingsVersion(opened.db)
    const secret = await rotateKeySecret(opened.db, 'k1', NOW)
    expect(secret).toMatch(/^[0-9a-f]{32}$/)
    const s = (await loadAllKeySecurity(opened.db)).get('k1')!
    expect(s.secretHash).toBe(hashSecret(secret))
    expect(await readSettingsVersion(opened.db)).toBe(before + 1)
    const raw = await opened.db.selectFrom('api_key_security').selectAll().execute()
    expect(JSON.stringify(raw)).not.toContain(secret)
    const again = await rotateKeySecret(opened.db, 'k1', NOW)
    expect(again).not.toBe(secret)
  })

  test('error: requiring a secret before one exists, or both secret and JWT, is refused', async () => {
    await expect(setSecurityFlags(opened.db, 'k1', { requireSecret: true }, NOW)).rejects.toMatchObject({
      code: 'VALIDATION',
    })
    await expect(setSecurityFlags(opened.db, 'k1', { requireJwt: true }, NOW)).rejects.toMatchObject({
      code: 'VALIDATION',
    })
    await rotateKeySecret(opened.db, 'k1', NOW)
    await setSecurityFlags(opened.db, 'k1', { requireSecret: true }, NOW)
    expect((await getKeySecurity(opened.db, 'k1')).requireSecret).toBe(true)
  })

  test('behavior: allowlist entries are normalised, deduplicated, capped at 30, removable', async () => {
    await addAllowlistEntriesTo(opened.db, 'k1', 'addresses', ['0xFE05A3E72235C9F92FD9F2282F41A8154D6D342B'], NOW)
    await addAllowlistEntriesTo(opened.db, 'k1', 'addresses', ['0xfe05a3e72235c9f92fd9f2282f41a8154d6d342b'], NOW)
    expect((await getKeySecurity(opened.db, 'k1')).allowlists.addresses).toEqual([
      '0xfe05a3e72235c9f92fd9f2282f41a8154d6d342b',
    ])
    await expect(addAllowlistEntriesTo(opened.db, 'k1', 'addresses', ['0x12'], NOW)).rejects.toMatchObject({
      code: 'VALIDATION',
    })
    await expect(
      addAllowlistEntriesTo(opened.db, 'k1', 'origins', ['https://exa mple.com'], NOW),
    ).rejects.toMatchObject({ code: 'VALIDATION' })
    const many = Array.from({ length: 30 }, (_, i) => `m${i}`)
    await expect(addAllowlistEntriesTo(opened.db, 'k1', 'methods', many.concat('m30'), NOW)).rejects.toThrow(
      /at most 30/,
    )
    await addAllowlistEntriesTo(opened.db, 'k1', 'methods', many, NOW)
    await removeAllowlistEntry(opened.db, 'k1', 'methods', 'm3', NOW)
    expect((await getKeySecurity(opened.db, 'k1')).allowlists.methods).toHaveLength(29)
    await addAllowlistEntriesTo(opened.db, 'k1', 'origins', ['HTTPS://*.Example.com/'], NOW)
    expect((await getKeySecurity(opened.db, 'k1')).allowlists.origins).toEqual(['https://*.example.com'])
  })

  test('behavior: JWT keys: at most 3, fingerprints computed, removing the last drops "require JWT"', async () => {
    const pems: string[] = []
    for (let i = 0; i < 4; i++)
      pems.push(await exportSPKI((await generateKeyPair('ES256', { extractable: true })).publicKey))
    const k0 = await addJwtKey(opened.db, 'k1', { name: 'a', alg: 'ES256', publicKeyPem: pems[0]! }, NOW)
    expect(k0.fingerprint).toMatch(/^[A-Za-z0-9+/]{43}=$/)
    await expect(
      addJwtKey(opened.db, 'k1', { name: 'dup', alg: 'ES256', publicKeyPem: pems[0]! }, NOW),
    ).rejects.toThrow(/already/)
    await expect(
      addJwtKey(opened.db, 'k1', { name: 'rsa?', alg: 'RS256', publicKeyPem: pems[1]! }, NOW),
    ).rejects.toThrow(/RSA/)
    await addJwtKey(opened.db, 'k1', { name: 'b', alg: 'ES256', publicKeyPem: pems[1]! }, NOW)
    await addJwtKey(opened.db, 'k1', { name: 'c', alg: 'ES256', publicKeyPem: pems[2]! }, NOW)
    await expect(addJwtKey(opened.db, 'k1', { name: 'd', alg: 'ES256', publicKeyPem: pems[3]! }, NOW)).rejects.toThrow(
      /at most 3/,
    )
    await setSecurityFlags(opened.db, 'k1', { requireJwt: true }, NOW)
    for (const k of (await getKeySecurity(opened.db, 'k1')).jwtKeys) await removeJwtKey(opened.db, 'k1', k.id, NOW)
    const s = await getKeySecurity(opened.db, 'k1')
    expect(s.jwtKeys).toEqual([])
    expect(s.requireJwt).toBe(false)
  })

  test('behavior: loaded settings drive evaluateKeyAccess', async () => {
    await addAllowlistEntriesTo(opened.db, 'k1', 'origins', ['https://a.com'], NOW)
    const s = (await loadAllKeySecurity(opened.db)).get('k1')!
    const opts = { jwtAudience: 'chaingate', now: NOW }
    expect(await evaluateKeyAccess(s, { origin: 'https://a.com', calls: [] }, opts)).toBeNull()
    expect((await evaluateKeyAccess(s, { origin: 'https://b.com', calls: [] }, opts))?.code).toBe(
      'KEY_SETTINGS_REJECTED',
    )
  })

  test('error: unknown key → NOT_FOUND', async () => {
    await expect(rotateKeySecret(opened.db, 'nope', NOW)).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })
})
