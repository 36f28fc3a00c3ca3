/**
 * The live config on its own: one snapshot swapped whole; the view the running parts hold reads the live sections
 * (networks, credits, log, plans) through the current snapshot and keeps the start's other sections.
 */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../config/load.ts'
import type { Config } from '../../config/schema.ts'
import { createLiveConfig } from './live-config.ts'
import { configVersion } from './version.ts'

const raw = (price: number, extra: Record<string, unknown> = {}) => ({
  gateway: { port: 8545 },
  networks: [{ name: 'net', chainId: 1, upstreams: [{ url: 'http://node.invalid' }] }],
  credits: { methods: { eth_call: price } },
  plans: { team: { creditsPerDay: 1000, creditsPerSecond: 10, maxKeys: null } },
  ...extra,
})
const snapshot = (config: Config) => ({
  config,
  version: { version: configVersion(config), loadedAt: '2026-01-01T00:00:00.000Z' },
})

describe('live config', () => {
  it("starts at the start's config, its version that of the config", () => {
    const start = parseConfig(raw(20))
    const live = createLiveConfig(start, '2026-01-01T12:00:00.000Z')
    expect(live.current.config).toBe(start)
    expect(live.current.version).toEqual({ version: configVersion(start), loadedAt: '2026-01-01T12:00:00.000Z' })
  })

  it('a swap publishes the next snapshot whole; a reader holding the old one keeps its config and version', () => {
    const start = parseConfig(raw(20))
    const live = createLiveConfig(start)
    const held = live.current
    const next = parseConfig(raw(30))
    live.swap(snapshot(next))
    expect(live.current.config).toBe(next)
    expect(live.current.version.version).toBe(configVersion(next))
    expect(live.current.version.version).not.toBe(held.version.version)
    expect(held.config.credits.methods.eth_call).toBe(20)
    expect(held.config).toBe(start)
  })

  it("the view reads networks, credits, log and plans through the current snapshot; other sections are the start's", () => {
    const start = parseConfig(raw(20))
    const live = createLiveConfig(start)
    const view = live.config
    const plans = view.plans
    expect(view.credits.methods.eth_call).toBe(20)
    const next = parseConfig(
      raw(30, {
        gateway: { port: 9999 },
        log: { level: 'debug' },
        networks: [{ name: 'other', chainId: 2, upstreams: [{ url: 'http://other.invalid' }] }],
        plans: { pro: { creditsPerDay: 5000, creditsPerSecond: 50, maxKeys: 3 } },
      }),
    )
    live.swap(snapshot(next))
    expect(view.credits.methods.eth_call).toBe(30)
    expect(view.networks.map((n) => n.name)).toEqual(['other'])
    expect(view.log.level).toBe('debug')
    // Fixed for the life of the process (plan.ts refuses a reload that changes them).
    expect(view.gateway.port).toBe(8545)
    // The plans object taken at start reads the reload's plans too.
    expect(view.plans).toBe(plans)
    expect(Object.keys(plans)).toEqual(Object.keys(next.plans))
    expect('pro' in plans).toBe(true)
    expect('hacked' in plans).toBe(false)
    expect((plans as Record<string, unknown>).pro).toEqual((next.plans as Record<string, unknown>).pro)
    expect({ ...plans }).toEqual(next.plans)
  })

  it('the plans view cannot be written: a running part cannot change a published snapshot', () => {
    const start = parseConfig(raw(20))
    const keys = Object.keys(start.plans)
    const live = createLiveConfig(start)
    const plans = live.config.plans as Record<string, unknown>
    expect(() => {
      plans.hacked = { creditsPerDay: 1 }
    }).toThrow(TypeError)
    expect(() => {
      delete plans.team
    }).toThrow(TypeError)
    expect(Object.keys(live.current.config.plans)).toEqual(keys)
    expect(keys).toContain('team')
  })
})
