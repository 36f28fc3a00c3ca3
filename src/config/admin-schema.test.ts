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
    process.env.CHAINGATE_ADMIN_TOKEN = 'from-the-environment-0123'
    expect(parseConfig({}).admin.token).toBe('from-the-environment-0123')
    const fromFile = parseConfig({ admin: { token: 'from-the-file-0123456789' } })
    expect(fromFile.admin.token).toBe('from-the-file-0123456789')
    expect(JSON.stringify(redactedConfig(fromFile))).not.toContain('from-the-file-0123456789')
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

describe('admin.auditRetentionDays', () => {
  it('90 days by default; a whole number of days from 1', () => {
    expect(parseConfig({}).admin.auditRetentionDays).toBe(90)
    expect(parseConfig({ admin: { auditRetentionDays: 7 } }).admin.auditRetentionDays).toBe(7)
    for (const bad of [0, 1.5, -1])
      expect(() => parseConfig({ admin: { auditRetentionDays: bad } })).toThrow(ConfigError)
  })
})
