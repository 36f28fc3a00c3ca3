import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../config/load.ts'
import { differingPaths, planReload, readReloadConfig } from './plan.ts'

const up = (url: string, extra: Record<string, unknown> = {}) => ({ url, ...extra })
const base = () => ({
  gateway: { port: 8545 },
  networks: [
    { name: 'mainnet', chainId: 1, upstreams: [up('http://a.example'), up('http://b.example')] },
    { name: 'sepolia', chainId: 11155111, upstreams: [up('http://s.example')] },
  ],
})
const cfg = (raw: Record<string, unknown>) => parseConfig(raw)

describe('planReload', () => {
  it('the same file: no change, nothing refused', () => {
    const p = planReload(cfg(base()), cfg(base()))
    expect(p).toMatchObject({ refused: [], added: [], removed: [], changed: [], plans: false, credits: false })
    expect(p.changes).toEqual([])
  })

  it('networks added, removed, re-pointed (new pool) and re-cached (new layers only)', () => {
    const next = base()
    next.networks[0]!.upstreams = [up('http://a.example', { weight: 5 }), up('http://c.example')]
    next.networks[1] = { name: 'holesky', chainId: 17000, upstreams: [up('http://h.example')] }
    const p = planReload(cfg(base()), cfg(next))
    expect(p.refused).toEqual([])
    expect(p.added.map((n) => n.name)).toEqual(['holesky'])
    expect(p.removed).toEqual(['sepolia'])
    expect(p.changed).toMatchObject([{ next: { name: 'mainnet' }, pool: true, layers: true }])
    expect(p.changes).toEqual([
      'network mainnet changed (upstreams)',
      'network holesky added',
      'network sepolia removed',
    ])

    const cacheOnly = base() as Record<string, any>
    cacheOnly.networks[0].cache = { uncachedMethods: ['eth_call'] }
    cacheOnly.networks[1].methods = { deny: ['eth_sign'] }
    const q = planReload(cfg(base()), cfg(cacheOnly))
    expect(q.changed).toMatchObject([
      { next: { name: 'mainnet' }, pool: false, layers: true },
      { next: { name: 'sepolia' }, pool: false, layers: false },
    ])
  })

  it('plans, credit prices and the log level are live', () => {
    const p = planReload(
      cfg(base()),
      cfg({
        ...base(),
        plans: { free: { creditsPerDay: 10, creditsPerSecond: 1, maxKeys: 1 } },
        credits: { methods: { eth_call: 99 } },
        log: { level: 'debug' },
      }),
    )
    expect(p).toMatchObject({ refused: [], plans: true, credits: true, logLevel: 'debug' })
    expect(p.changes).toContain('credits changed (credits.methods.eth_call)')
    expect(p.changes).toContain('log.level info → debug')
  })

  it('listeners, storage and start-only settings are refused, one line each naming the setting', () => {
    const p = planReload(
      cfg(base()),
      cfg({
        ...base(),
        gateway: { port: 9000, maxBatchSize: 10 },
        database: { url: 'postgres://x@db/y' },
        log: { destination: 'stdout' },
      }),
    )
    expect(p.refused).toEqual([
      'gateway.port: cannot change while chaingate runs (restart to apply it); nothing was reloaded',
      expect.stringMatching(/^gateway\.maxBatchSize: is read at start only \(restart to apply it; live: networks/),
      'database.url: cannot change while chaingate runs (restart to apply it); nothing was reloaded',
      expect.stringMatching(/^log\.destination: is read at start only/),
    ])
  })

  it('a chain id change and embedded chains are refused', () => {
    const next = base()
    next.networks[1]!.chainId = 5
    const p = planReload(
      cfg(base()),
      cfg({ ...next, networks: [...next.networks, { name: 'dev', chainId: 9, embedded: {} }] }),
    )
    expect(p.refused).toEqual([
      'networks[sepolia].chainId: cannot change live (add the chain as another network); nothing was reloaded',
      'networks[dev].embedded: an embedded chain cannot be added live (restart to apply it); nothing was reloaded',
    ])
    const withDev = cfg({ networks: [...base().networks, { name: 'dev', chainId: 9, embedded: {} }] })
    expect(planReload(withDev, cfg(base())).refused).toEqual([
      'networks[dev].embedded: an embedded chain cannot be removed live (restart to apply it); nothing was reloaded',
    ])
  })

  it('differingPaths walks objects and compares arrays whole', () => {
    expect(differingPaths({ a: { b: 1, c: [1] } }, { a: { b: 2, c: [1] }, d: 1 })).toEqual(['a.b', 'd'])
  })
})

describe('readReloadConfig', () => {
  it('an invalid file is one line naming the setting', () => {
    const line = readReloadConfig(undefined, () =>
      parseConfig({ ...base(), gateway: { port: 'x' }, plans: { free: { creditsPerDay: -1 } } }, 'cfg.yaml'),
    )
    expect(line).toMatch(
      /^invalid config cfg\.yaml: gateway\.port: .*\(and \d+ more: chaingate config validate cfg\.yaml\); nothing/,
    )
    expect(readReloadConfig(undefined, undefined)).toMatch(/started without one/)
  })
})
