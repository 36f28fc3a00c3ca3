import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from './load.ts'

const problems = (raw: unknown) => {
  try {
    parseConfig(raw)
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
  return []
}

describe('config validation', () => {
  it('defaults: two embedded EVM devnets with different chain ids and a Solana devnet, Infura plans and costs', () => {
    const c = parseConfig({})
    expect(c.networks.map((n) => [n.name, n.family, n.chainId])).toEqual([
      ['devnet-a', 'evm', 31337],
      ['devnet-b', 'evm', 31338],
      ['solana-devnet', 'solana', undefined],
    ])
    expect(c.gateway.port).toBe(8545)
    expect(c.plans.free).toEqual({ creditsPerDay: 3_000_000, creditsPerSecond: 500, maxKeys: 1 })
    expect(c.plans.developer).toEqual({ creditsPerDay: 15_000_000, creditsPerSecond: 4_000, maxKeys: 5 })
    expect(c.plans.team).toEqual({ creditsPerDay: 75_000_000, creditsPerSecond: 40_000, maxKeys: null })
    expect(c.credits.methods.eth_getBlockByNumber).toBe(80)
    expect(c.credits.defaultCost).toBe(80)
    expect(c.credits.methods.getBalance).toBe(180)
  })

  it('chain families: an EVM network needs chainId, a Solana one has none, and family-only keys stay in their family', () => {
    const p = problems({
      networks: [
        { name: 'a', embedded: {} },
        { name: 'b', family: 'solana', chainId: 5, upstreams: [{ url: 'http://n.example' }] },
        { name: 'c', chainId: 7, chain: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', embedded: { slotMs: 100 } },
        { name: 'd', family: 'solana', chain: 'solana:short', upstreams: [{ url: 'http://n.example' }] },
      ],
    })
    expect(p).toContain('networks[0].chainId: an EVM network needs its chainId')
    expect(p.some((l) => l.startsWith('networks[1].chainId: a Solana network has no chainId'))).toBe(true)
    expect(p).toContain('networks[2].chain: only a Solana network names its `chain`')
    expect(p).toContain('networks[2].embedded: `slotMs` and `engine` are for Solana devnets')
    expect(p.some((l) => l.startsWith('networks[3].chain: solana: and the first 32 characters'))).toBe(true)
  })

  it('reports every problem with its path', () => {
    const p = problems({
      bogus: 1,
      gateway: { port: 'eighty', maxBatchSize: 0 },
      networks: [
        { name: 'a', chainId: 1, embedded: {} },
        { name: 'a', chainId: 1, embedded: {}, upstreams: [{ url: 'ftp://x' }] },
      ],
      credits: { networks: { nowhere: { eth_call: 1 } } },
    })
    const joined = p.join('\n')
    expect(joined).toContain('bogus')
    expect(joined).toContain('gateway.port')
    expect(joined).toContain('gateway.maxBatchSize')
    expect(joined).toContain('networks[1].upstreams[0].url')
    expect(p.length).toBeGreaterThanOrEqual(4)
  })

  it('cross-field rules: duplicate names, chain ids and hosts; unknown plan; exactly one of embedded/upstreams', () => {
    const joined = problems({
      networks: [
        { name: 'a', chainId: 1, embedded: {} },
        { name: 'a', chainId: 1, hosts: ['a.localhost'], upstreams: [{ url: 'http://127.0.0.1:1' }] },
        { name: 'c', chainId: 3 },
      ],
      gateway: { defaultPlan: 'gold' },
    }).join('\n')
    expect(joined).toContain('networks[1].name: duplicate network a')
    expect(joined).toContain('networks[1].chainId: duplicate chainId 1')
    expect(joined).toContain('networks[1].hosts: duplicate host a.localhost')
    expect(joined).toContain('networks[2]: a network needs exactly one of `embedded` or `upstreams`')
    expect(joined).toContain('gateway.defaultPlan')
  })

  it('plans and costs merge over the defaults', () => {
    const c = parseConfig({
      plans: { gold: { creditsPerDay: 1, creditsPerSecond: 1, maxKeys: 2 } },
      credits: { methods: { eth_call: 7 } },
    })
    expect(Object.keys(c.plans)).toEqual(expect.arrayContaining(['free', 'developer', 'team', 'dev', 'gold']))
    expect(c.credits.methods.eth_call).toBe(7)
    expect(c.credits.methods.eth_chainId).toBe(5)
  })
})
