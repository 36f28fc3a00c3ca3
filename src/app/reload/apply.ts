/**
 * Applies a reload to a running app (docs/config.md, "Reloading"): everything new is built first — the next config
 * snapshot (./live-config.ts), pools for added and re-pointed networks (their nodes' eth_chainId checked), call
 * layers, the cost table, the version — and nothing running is touched until all of it stands; a step that fails
 * there closes what it built and the answer says nothing was reloaded. Then the swap, in one synchronous step: the
 * snapshot every reader reads through, and the network parts (pools, layers, registry, costs), so a call sees the
 * old settings or the new ones, never a mix. The answer lists exactly what was applied; a step after the swap
 * that fails (a subscription hub, the key snapshot) does not undo it: it is named in `warnings`. A call already
 * holding an old pool finishes on it: old pools and layers are closed once the longest call could have ended (the
 * network's deadline). WebSocket subscriptions stay: a network's hub reads its nodes from the live pool, moves
 * off a node that was removed (make before break, like a failover), and clients of a removed network are closed
 * with 4004.
 */
import type { Config, NetworkConfig } from '../../config/schema.ts'
import { createCostTable, type SwappableCostTable } from '../../credits/costs.ts'
import { createNetworkLayers, type NetworkLayers } from '../../gateway/layers/index.ts'
import type { CallLayers } from '../../gateway/layers/layers.ts'
import type { GatewayServer } from '../../gateway/http/server.ts'
import type { KeySnapshot } from '../../keys/snapshot.ts'
import type { SwappableNetworkRegistry } from '../../networks/registry.ts'
import type { Logger } from '../../observability/logger.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import type { SubscriptionHub } from '../../upstreams/subscriptions/hub.ts'
import { createNetworkHub, createNetworkPool } from '../parts/upstreams.ts'
import type { ConfigVersion, LiveConfig } from './live-config.ts'
import { planReload, type ReloadPlan } from './plan.ts'
import { configVersion, prepareConfigVersion } from './version.ts'

export type { ConfigVersion } from './live-config.ts'

/** Extra time after a network's call deadline before its old pool and layers close. */
const RETIRE_MARGIN_MS = 1000

export interface ReloadResult extends ConfigVersion {
  ok: boolean
  /** What was applied, one line each (empty: nothing was, or the file says what already runs). */
  changes: string[]
  /** Why nothing was applied (ok false): one line naming the setting or the step. */
  error?: string
  /** Applied, but a step after the swap failed (ok true): one line each, what still needs attention. */
  warnings?: string[]
}

export interface ReloadTargets {
  /** The running config's snapshot: replaced whole by a reload. */
  live: LiveConfig
  logger: Logger
  networks: SwappableNetworkRegistry
  /** Network names, changed in place (the keys repository checks names against it). */
  networkNames: string[]
  costs: SwappableCostTable
  pools: Map<string, UpstreamPool>
  hubs: Map<string, SubscriptionHub>
  callLayers: NetworkLayers
  networkConfigs: Map<string, NetworkConfig>
  upstreamUrls: ReadonlyMap<string, { url: string; wsUrl: string }>
  keySnapshot: KeySnapshot
  server: Pick<GatewayServer, 'closeNetworkSockets'>
}

export interface Reloader {
  /** Applies `next` (already validated); resolves with what happened, never rejects. One reload at a time. */
  apply(next: Config): Promise<ReloadResult>
  current(): ConfigVersion
  /** Closes what still waits to retire (app stop). */
  close(): Promise<void>
}

export function createReloader(t: ReloadTargets): Reloader {
  const retiring = new Set<{ timer: NodeJS.Timeout; close: () => Promise<void> }>()
  let queue: Promise<unknown> = Promise.resolve()
  const version = () => t.live.current.version

  const retire = (n: NetworkConfig, pool: UpstreamPool | undefined, layers: CallLayers | undefined) => {
    const close = async () => {
      retiring.delete(entry)
      layers?.close()
      await pool?.close()
    }
    const afterMs = (n.upstreamPolicy.totalTimeoutMs ?? t.live.config.gateway.upstreamTimeoutMs) + RETIRE_MARGIN_MS
    const entry = { timer: setTimeout(() => void close().catch(() => undefined), afterMs), close }
    entry.timer.unref()
    retiring.add(entry)
  }

  const layersFor = (n: NetworkConfig, pools: ReadonlyMap<string, UpstreamPool>, config: Config) =>
    createNetworkLayers({ cache: config.cache, networks: [n] }, pools, {
      cache: t.callLayers.store,
      floors: t.callLayers.floors,
      lookups: t.callLayers.lookups,
    }).layers.get(n.name)!

  const fail = (error: string): ReloadResult => ({ ok: false, ...version(), changes: [], error })

  /** Everything the swap puts in place, built without touching what runs; throws after closing what it built. */
  const build = async (plan: ReloadPlan, next: Config) => {
    // Pools for new and re-pointed networks, checked like at start (a node on another chain refuses).
    const newPools = new Map<string, UpstreamPool>()
    const newLayers = new Map<string, CallLayers>()
    const closeBuilt = async () => {
      for (const l of newLayers.values()) l.close()
      await Promise.all([...newPools.values()].map((p) => p.close().catch(() => undefined)))
    }
    try {
      for (const n of [...plan.added, ...plan.changed.filter((c) => c.pool).map((c) => c.next)])
        newPools.set(n.name, createNetworkPool(n, next, t.upstreamUrls, t.logger))
      try {
        await Promise.all([...newPools.values()].map((p) => p.verifyChainId()))
      } catch (err) {
        throw new Error(`networks: ${(err as Error).message}`)
      }
      // An added Solana network without `chain` took it from its nodes.
      for (const n of next.networks) if (n.family === 'solana') n.chain ??= newPools.get(n.name)?.chain
      const poolsAfter = new Map([...t.pools, ...newPools])
      for (const n of [...plan.added, ...plan.changed.filter((c) => c.layers).map((c) => c.next)])
        newLayers.set(n.name, layersFor(n, poolsAfter, next))
      // The new version's scrypt (./version.ts) on the thread pool, then the version itself.
      await prepareConfigVersion(next)
      const snapshot = { config: next, version: { version: configVersion(next), loadedAt: new Date().toISOString() } }
      const costs = createCostTable(
        next.credits,
        next.networks.map((n) => n.name),
      )
      return { newPools, newLayers, snapshot, costs }
    } catch (err) {
      await closeBuilt()
      throw err
    }
  }

  const run = async (next: Config): Promise<ReloadResult> => {
    const plan = planReload(t.live.current.config, next)
    if (plan.refused.length > 0) return fail(plan.refused[0]!)
    if (plan.changes.length === 0) return { ok: true, ...version(), changes: [] }
    let built: Awaited<ReturnType<typeof build>>
    try {
      built = await build(plan, next)
    } catch (err) {
      return fail(`${(err as Error).message}; nothing was reloaded`)
    }
    const { newPools, newLayers, snapshot, costs } = built

    // Swap, in one synchronous step.
    const old = new Map<string, { n: NetworkConfig; pool?: UpstreamPool; layers?: CallLayers }>()
    for (const name of plan.removed)
      old.set(name, { n: t.networkConfigs.get(name)!, pool: t.pools.get(name), layers: t.callLayers.layers.get(name) })
    for (const c of plan.changed)
      old.set(c.next.name, {
        n: t.networkConfigs.get(c.next.name)!,
        ...(c.pool ? { pool: t.pools.get(c.next.name) } : {}),
        ...(c.layers ? { layers: t.callLayers.layers.get(c.next.name) } : {}),
      })
    for (const n of next.networks) t.networkConfigs.set(n.name, n)
    for (const [name, pool] of newPools) t.pools.set(name, pool)
    for (const [name, layers] of newLayers) t.callLayers.layers.set(name, layers)
    for (const name of plan.removed) {
      t.networkConfigs.delete(name)
      t.pools.delete(name)
      t.callLayers.layers.delete(name)
    }
    t.networks.swap(next.networks)
    t.networkNames.splice(0, t.networkNames.length, ...next.networks.map((n) => n.name))
    t.costs.swap(costs)
    t.live.swap(snapshot)
    if (plan.logLevel) t.logger.level = plan.logLevel
    for (const [, o] of old) retire(o.n, o.pool, o.layers)

    // After the swap: what follows from it. Applied whatever happens here; a failure is a warning.
    const warnings: string[] = []
    const step = async (what: string, f: () => unknown) => {
      try {
        await f()
      } catch (err) {
        warnings.push(`${what}: ${(err as Error)?.message ?? String(err)}`)
      }
    }
    for (const n of plan.added)
      await step(`network ${n.name}: subscriptions`, () =>
        t.hubs.set(n.name, createNetworkHub(n.name, { ...t, config: t.live.config })),
      )
    for (const name of plan.removed) {
      t.server.closeNetworkSockets(name)
      const hub = t.hubs.get(name)
      t.hubs.delete(name)
      await step(`network ${name}: closing its subscriptions`, () => hub?.close())
    }
    await Promise.all(
      plan.changed
        .filter((c) => c.pool)
        .map((c) =>
          step(`network ${c.next.name}: subscriptions`, async () => {
            if ((await t.hubs.get(c.next.name)?.leaveRemovedNode()) === false)
              warnings.push(
                `network ${c.next.name}: subscriptions could not move off a removed node yet; they move when it drops`,
              )
          }),
        ),
    )
    if (plan.plans)
      await step('plans: reloading keys (they take the new plans at the next poll)', () => t.keySnapshot.reload())
    for (const w of warnings) t.logger.warn({ version: snapshot.version.version }, `reload: ${w}`)
    return { ok: true, ...snapshot.version, changes: plan.changes, ...(warnings.length > 0 ? { warnings } : {}) }
  }

  return {
    apply(next) {
      const result = queue.then(() =>
        // run() catches what fails before the swap; anything else is a bug before it too (nothing applied).
        run(next).catch((err: Error): ReloadResult => fail(`${err.message}; nothing was reloaded`)),
      )
      queue = result
      return result
    },
    current: version,
    async close() {
      await Promise.all(
        [...retiring].map((r) => {
          clearTimeout(r.timer)
          return r.close()
        }),
      )
    },
  }
}
