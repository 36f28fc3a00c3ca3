import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from './load.ts'
import { redactedConfig } from './show.ts'

const saved = process.env.CHAINGATE_ADMIN_TOKEN
afterEach(() => {
  if (saved === undefined) delete process.env.CHAINGATE_ADMIN_TOKEN
  else process.env.CHAINGATE_ADMIN_TOKEN = saved
})

describe('admin.token', () => {
  it('off by default; from the file, else from CHAINGATE_ADMIN_TOKEN; the file wins; redacted by config show', () => {
    delete process.env.CHAINGATE_ADMIN_TOKEN
    expect(parseConfig({}).admin.token).toBeNull()
    process.env.CHAINGATE_ADMIN_TOKEN = 'from-the-environment-5f2c9a7e1b4d'
    expect(parseConfig({}).admin.token).toBe('from-the-environment-5f2c9a7e1b4d')
    const fromFile = parseConfig({ admin: { token: 'from-the-file-0123456789-3d8b6e2a' } })
    expect(fromFile.admin.token).toBe('from-the-file-0123456789-3d8b6e2a')
    expect(JSON.stringify(redactedConfig(fromFile))).not.toContain('from-the-file-0123456789-3d8b6e2a')
  })

  it('a short token is refused with its path, whichever source', () => {
    for (const [raw, env] of [
      [{ admin: { token: 'short' } }, undefined],
      [{}, 'short'],
    ] as const) {
      if (env === undefined) delete process.env.CHAINGATE_ADMIN_TOKEN
      else process.env.CHAINGATE_ADMIN_TOKEN = env
      let problems: string[] = []
      try {
        parseConfig(raw)
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err
        problems = err.problems
      }
      expect(problems).toHaveLength(1)
      expect(problems[0]).toMatch(/^admin\.token: .*CHAINGATE_ADMIN_TOKEN/)
    }
  })
})

describe('admin.token strength', () => {
  it('refuses short, repetitive or low-entropy tokens; random ones of 32 characters pass', () => {
    delete process.env.CHAINGATE_ADMIN_TOKEN
    for (const weak of [
      'sixteen-chars-ok',
      'passwordpasswordpasswordpassword',
      'abcdefghabcdefghabcdefghabcdefgh',
      'a'.repeat(64),
      `${'0'.repeat(31)}1`,
      `${'a'.repeat(24)}bcdefghi`,
    ])
      expect(() => parseConfig({ admin: { token: weak } }), weak).toThrow(/admin\.token: .*openssl rand -hex 32/)
    for (const strong of [
      'test-admin-token-0123456789abcdef',
      '3f9a0c1b2d4e5f60718293a4b5c6d7e8',
      'k3Yx9-Qm2vT8wLp4Zr7Nc1Hd6Fb0Gs5Ja',
    ])
      expect(parseConfig({ admin: { token: strong } }).admin.token).toBe(strong)
    expect(parseConfig({}).admin.tokenFailuresPerMinute).toBe(10)
  })
})

describe('admin.auditRetentionDays', () => {
  it('90 days by default; a whole number of days from 1', () => {
    expect(parseConfig({}).admin.auditRetentionDays).toBe(90)
    expect(parseConfig({ admin: { auditRetentionDays: 7 } }).admin.auditRetentionDays).toBe(7)
    for (const bad of [0, 1.5, -1])
      expect(() => parseConfig({ admin: { auditRetentionDays: bad } })).toThrow(ConfigError)
  })
})
