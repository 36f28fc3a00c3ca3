import { createHash, scryptSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../config/load.ts'
import { redactedConfig } from '../../config/show.ts'
import { configVersion, prepareConfigVersion } from './version.ts'

const TOKEN = 'k3Yx9-Qm2vT8wLp4Zr7Nc1Hd6Fb0Gs5Ja'
const base = (token = TOKEN, nodeKey = 'abc123') =>
  parseConfig({
    admin: { token },
    networks: [{ name: 'remote', chainId: 1, upstreams: [{ url: `https://node.example/v3/${nodeKey}` }] }],
  })

describe('config version', () => {
  it('equal files, equal versions; any change, secrets included, another version', () => {
    const v = configVersion(base())
    expect(v).toMatch(/^[0-9a-f]{12}$/)
    expect(configVersion(base())).toBe(v)
    // Per-process settings are left out (every replica of one file shows one version).
    expect(configVersion({ ...base(), dataDir: '/elsewhere' })).toBe(v)
    expect(configVersion(base(`${TOKEN}x`))).not.toBe(v)
    expect(configVersion(base(TOKEN, 'abc124'))).not.toBe(v)
    const plans = base()
    plans.gateway.defaultPlan = 'team'
    expect(configVersion(plans)).not.toBe(v)
  })

  it('is no fast hash of the secrets: the redacted config and a salted scrypt digest of what redaction hides', () => {
    const config = base()
    const { dataDir: _d, database: _db, redis: _r, gateway, ...rest } = config
    const { host: _h, port: _p, operations, ...gatewayRest } = gateway
    const { listen: _l, ...operationsRest } = operations
    const whole = { ...rest, gateway: { ...gatewayRest, operations: operationsRest } }
    const sha = (...parts: string[]) => {
      const h = createHash('sha256')
      for (const p of parts) h.update(p)
      return h.digest('hex')
    }
    // The old version: a plain SHA-256 over everything, an offline oracle for a weak token.
    expect(configVersion(config)).not.toBe(sha(JSON.stringify(whole)).slice(0, 12))
    const hidden: string[] = []
    const shown = JSON.stringify(redactedConfig(whole, hidden))
    expect(hidden).toEqual(['https://node.example/v3/abc123', TOKEN])
    expect(shown).not.toContain(TOKEN)
    const salt = sha('chaingate config version\n', shown)
    const digest = scryptSync(JSON.stringify(hidden), salt, 32, { N: 2 ** 14, r: 8, p: 1 }).toString('hex')
    expect(configVersion(config)).toBe(sha(shown, '\n', digest).slice(0, 12))
  })

  it('prepared off the event loop gives the same version', async () => {
    const config = base(`${TOKEN}-prepared`)
    await prepareConfigVersion(config)
    const t0 = performance.now()
    const prepared = configVersion(config)
    const fast = performance.now() - t0
    expect(prepared).toBe(configVersion(base(`${TOKEN}-prepared`)))
    // Cached: no scrypt run on the event loop (one takes tens of milliseconds).
    expect(fast).toBeLessThan(20)
  })
})
