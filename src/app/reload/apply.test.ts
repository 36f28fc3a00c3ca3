/**
 * A reload applied to running parts built as the app builds them (a real pool over a fake node, call layers, cost
 * table, network registry, subscription hub, live config): what it swaps, what it leaves when a step fails, and that
 * the answer lists exactly what was applied. The key snapshot is a stand-in whose reload the test controls (its own
 * tests are src/keys/); the server is reduced to the one call a reload makes on it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { startFakeNode, type FakeNode } from '../../../test/support/fake-node.ts'
import { parseConfig } from '../../config/load.ts'
import type { Config, NetworkConfig } from '../../config/schema.ts'
import { createCostTable, createSwappableCostTable } from '../../credits/costs.ts'
import { createNetworkLayers } from '../../gateway/layers/index.ts'
import type { KeySnapshot } from '../../keys/snapshot.ts'
import { createSwappableNetworkRegistry } from '../../networks/registry.ts'
import { createLogger } from '../../observability/logger.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import type { SubscriptionHub } from '../../upstreams/subscriptions/hub.ts'
import { createNetworkHub, createNetworkPool } from '../parts/upstreams.ts'
import { createReloader, type Reloader } from './apply.ts'
import { createLiveConfig } from './live-config.ts'
import { configVersion } from './version.ts'

const CHAIN = '0x7a6d' // 31341
const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  vi.useRealTimers()
  for (const c of cleanups.splice(0).reverse()) await c()
})
async function fakeNode(chain = CHAIN): Promise<FakeNode> {
  const n = await startFakeNode(chain)
  cleanups.push(() => n.close())
  return n
}

interface RawNetwork {
  name: string
  chainId: number
  upstreams: { url: string }[]
}
const raw = (networks: RawNetwork[], price = 20, extra: Record<string, unknown> = {}) => ({
  networks,
  gateway: { upstreamTimeoutMs: 4000 },
  credits: { methods: { eth_call: price } },
  ...extra,
})

/** The app's parts for `start`, and a reloader over them. */
async function running(start: Config, keysReload: () => Promise<void> = async () => undefined) {
  const logger = createLogger('silent')
  const live = createLiveConfig(start)
  const names = start.networks.map((n) => n.name)
  const pools = new Map<string, UpstreamPool>()
  for (const n of start.networks) pools.set(n.name, createNetworkPool(n, start, new Map(), logger))
  await Promise.all([...pools.values()].map((p) => p.verifyChainId()))
  const networkConfigs = new Map<string, NetworkConfig>(start.networks.map((n) => [n.name, n]))
  const callLayers = createNetworkLayers(start, pools)
  const hubs = new Map<string, SubscriptionHub>()
  for (const n of start.networks)
    hubs.set(n.name, createNetworkHub(n.name, { config: live.config, pools, networkConfigs, logger }))
  const closedSockets: string[] = []
  const keyReloads: number[] = []
  const t = {
    live,
    logger,
    networks: createSwappableNetworkRegistry(start.networks),
    networkNames: names,
    costs: createSwappableCostTable(createCostTable(start.credits, names)),
    pools,
    hubs,
    callLayers,
    networkConfigs,
    upstreamUrls: new Map<string, { url: string; wsUrl: string }>(),
    keySnapshot: {
      reload: async () => {
        keyReloads.push(Date.now())
        await keysReload()
      },
    } as KeySnapshot,
    server: { closeNetworkSockets: (name: string) => void closedSockets.push(name) },
  }
  const reloader: Reloader = createReloader(t)
  cleanups.push(async () => {
    await reloader.close()
    for (const h of hubs.values()) await h.close()
    callLayers.close()
    for (const l of callLayers.layers.values()) l.close()
    await Promise.all([...pools.values()].map((p) => p.close()))
  })
  return { t, reloader, closedSockets, keyReloads }
}

describe('reload: apply', () => {
  it('a reload that changes prices swaps one snapshot and the cost table; the pools stay', async () => {
    const node = await fakeNode()
    const networks = [{ name: 'net', chainId: 31341, upstreams: [{ url: node.url }] }]
    const start = parseConfig(raw(networks, 20))
    const { t, reloader } = await running(start)
    const before = t.live.current
    const pool = t.pools.get('net')
    const next = parseConfig(raw(networks, 30))
    const r = await reloader.apply(next)
    expect(r).toEqual({
      ok: true,
      version: configVersion(next),
      loadedAt: t.live.current.version.loadedAt,
      changes: ['credits changed (credits.methods.eth_call)'],
    })
    expect(t.live.current).not.toBe(before)
    expect(t.live.current.config).toBe(next)
    expect(t.live.current.version.version).not.toBe(before.version.version)
    expect(t.live.config.credits.methods.eth_call).toBe(30)
    expect(t.costs.method('net', 'eth_call')).toBe(30)
    // A reader that held the old snapshot keeps the old prices; the network's pool is the same one.
    expect(before.config.credits.methods.eth_call).toBe(20)
    expect(t.pools.get('net')).toBe(pool)
    expect(reloader.current()).toEqual(t.live.current.version)

    // The same file again: nothing to apply, the same snapshot.
    const same = await reloader.apply(parseConfig(raw(networks, 30)))
    expect(same).toEqual({ ok: true, ...t.live.current.version, changes: [] })
    expect(t.live.current.config).toBe(next)
  })

  it('a failing step before the swap leaves the old snapshot and everything running; the answer says nothing was applied', async () => {
    const node = await fakeNode()
    const wrong = await fakeNode() // answers chain id 31341
    const net = { name: 'net', chainId: 31341, upstreams: [{ url: node.url }] }
    const start = parseConfig(raw([net], 20))
    const { t, reloader, keyReloads } = await running(start)
    const before = t.live.current
    // A price change together with a network whose node is on another chain: nothing of it is applied.
    const next = parseConfig(
      raw([net, { name: 'added', chainId: 5, upstreams: [{ url: wrong.url }] }], 30, {
        plans: { pro: { creditsPerDay: 5, creditsPerSecond: 5, maxKeys: 1 } },
      }),
    )
    const r = await reloader.apply(next)
    expect(r.ok).toBe(false)
    expect(r.changes).toEqual([])
    expect(r.error).toMatch(/^networks: .*; nothing was reloaded$/)
    expect(r.version).toBe(before.version.version)
    expect(r.loadedAt).toBe(before.version.loadedAt)
    expect(r.warnings).toBeUndefined()
    expect(t.live.current).toBe(before)
    expect(t.costs.method('net', 'eth_call')).toBe(20)
    expect([...t.pools.keys()]).toEqual(['net'])
    expect([...t.hubs.keys()]).toEqual(['net'])
    expect(t.networks.byName('added')).toBeUndefined()
    expect(t.networkNames).toEqual(['net'])
    expect(keyReloads).toEqual([])
    // The new network's node was asked its chain id only: its pool never started (no head polls) and was closed.
    expect(wrong.requests.map((q) => q.body?.method)).toEqual(['eth_chainId'])
  })

  it('a setting that cannot change live refuses the whole reload with its line', async () => {
    const node = await fakeNode()
    const networks = [{ name: 'net', chainId: 31341, upstreams: [{ url: node.url }] }]
    const { t, reloader } = await running(parseConfig(raw(networks, 20)))
    const before = t.live.current
    const r = await reloader.apply(parseConfig(raw(networks, 30, { gateway: { upstreamTimeoutMs: 4000, port: 9 } })))
    expect(r).toEqual({
      ok: false,
      ...before.version,
      changes: [],
      error: 'gateway.port: cannot change while chaingate runs (restart to apply it); nothing was reloaded',
    })
    expect(t.live.current).toBe(before)
    expect(t.costs.method('net', 'eth_call')).toBe(20)
  })

  it('a step after the swap that fails is a warning: the rest stays applied and the answer lists it', async () => {
    const node = await fakeNode()
    const networks = [{ name: 'net', chainId: 31341, upstreams: [{ url: node.url }] }]
    const { t, reloader, keyReloads } = await running(parseConfig(raw(networks, 20)), async () => {
      throw new Error('database is locked')
    })
    const next = parseConfig(
      raw(networks, 30, { plans: { pro: { creditsPerDay: 5, creditsPerSecond: 5, maxKeys: 1 } } }),
    )
    const r = await reloader.apply(next)
    expect(r.ok).toBe(true)
    expect(r.version).toBe(configVersion(next))
    expect(r.changes).toEqual([
      expect.stringMatching(/^plans changed \(plans\.pro/),
      'credits changed (credits.methods.eth_call)',
    ])
    expect(r.warnings).toEqual(['plans: reloading keys (they take the new plans at the next poll): database is locked'])
    expect(keyReloads).toHaveLength(1)
    expect(t.live.current.config).toBe(next)
    expect(t.costs.method('net', 'eth_call')).toBe(30)
    expect('pro' in t.live.config.plans).toBe(true)
  })

  it("a network added and one removed: the new one's pool, hub and name in place; the old one's sockets closed and its pool retired after its deadline", async () => {
    const [a, b] = [await fakeNode(), await fakeNode()]
    const start = parseConfig(raw([{ name: 'old', chainId: 31341, upstreams: [{ url: a.url }] }]))
    const { t, reloader, closedSockets } = await running(start)
    const oldPool = t.pools.get('old')!
    const closePool = vi.spyOn(oldPool, 'close')
    const oldHub = t.hubs.get('old')!
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const next = parseConfig(raw([{ name: 'new', chainId: 31341, upstreams: [{ url: b.url }] }]))
    const r = await reloader.apply(next)
    expect(r).toMatchObject({ ok: true, changes: ['network new added', 'network old removed'] })
    expect(r.warnings).toBeUndefined()
    expect([...t.pools.keys()]).toEqual(['new'])
    expect([...t.hubs.keys()]).toEqual(['new'])
    expect([...t.callLayers.layers.keys()]).toEqual(['new'])
    expect(t.networkNames).toEqual(['new'])
    expect(t.networks.byName('new')?.chainId).toBe(31341)
    expect(t.networks.byName('old')).toBeUndefined()
    expect(closedSockets).toEqual(['old'])
    await expect(
      oldHub.subscribe(
        ['newHeads'],
        () => undefined,
        () => undefined,
      ),
    ).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
    })
    // A call already holding the old pool may run for the network's deadline (4 s): closed 1 s after it.
    await vi.advanceTimersByTimeAsync(4999)
    expect(closePool).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(closePool).toHaveBeenCalledTimes(1)
    cleanups.push(() => oldPool.close())
  })

  it('reloads run one at a time, each planned against the one before it', async () => {
    const node = await fakeNode()
    const networks = [{ name: 'net', chainId: 31341, upstreams: [{ url: node.url }] }]
    const { t, reloader } = await running(parseConfig(raw(networks, 20)))
    const thirty = parseConfig(raw(networks, 30))
    const forty = parseConfig(raw(networks, 40))
    const [r1, r2, r3] = await Promise.all([
      reloader.apply(thirty),
      reloader.apply(forty),
      reloader.apply(parseConfig(raw(networks, 40))),
    ])
    expect(r1).toMatchObject({ ok: true, version: configVersion(thirty) })
    expect(r2).toMatchObject({ ok: true, version: configVersion(forty) })
    expect(r3).toMatchObject({ ok: true, version: configVersion(forty), changes: [] })
    expect(t.costs.method('net', 'eth_call')).toBe(40)
  })
})
