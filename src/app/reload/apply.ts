/**
 * Applies a reload to a running app in place (docs/config.md, "Reloading"): everything new is built first — pools
 * for added and re-pointed networks (their nodes' eth_chainId checked), call layers, the cost table — then swapped
 * in one synchronous step, so a call sees the old settings or the new ones, never a mix. A call already holding
 * an old pool finishes on it: old pools and layers are closed once the longest call could have ended (the
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
import { planReload } from './plan.ts'
import { configVersion, prepareConfigVersion } from './version.ts'

/** Extra time after a network's call deadline before its old pool and layers close. */
const RETIRE_MARGIN_MS = 1000

export interface ConfigVersion {
  /**
   * A short hash of the effective config, secrets hashed apart (./version.ts): equal configs, equal versions
   * (whatever process runs them).
   */
  version: string
  /** When this process took it (start or reload), ISO 8601. */
  loadedAt: string
}

export interface ReloadResult extends ConfigVersion {
  ok: boolean
  /** What changed, one line each (empty: the file says what already runs). */
  changes: string[]
  /** Why nothing was applied: one line naming the setting. */
  error?: string
}

export interface ReloadTargets {
  /** The running config: its live sections are replaced in place, so every part holding it sees the new ones. */
  config: Config
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
  let version: ConfigVersion = { version: configVersion(t.config), loadedAt: new Date().toISOString() }
  const retiring = new Set<{ timer: NodeJS.Timeout; close: () => Promise<void> }>()
  let queue: Promise<unknown> = Promise.resolve()

  const retire = (n: NetworkConfig, pool: UpstreamPool | undefined, layers: CallLayers | undefined) => {
    const close = async () => {
      retiring.delete(entry)
      layers?.close()
      await pool?.close()
    }
    const afterMs = (n.upstreamPolicy.totalTimeoutMs ?? t.config.gateway.upstreamTimeoutMs) + RETIRE_MARGIN_MS
    const entry = { timer: setTimeout(() => void close().catch(() => undefined), afterMs), close }
    entry.timer.unref()
    retiring.add(entry)
  }

  const layersFor = (n: NetworkConfig, pools: ReadonlyMap<string, UpstreamPool>, config: Config) =>
    createNetworkLayers({ cache: config.cache, networks: [n] }, pools, {
      cache: t.callLayers.store,
      floors: t.callLayers.floors,
    }).layers.get(n.name)!

  const run = async (next: Config): Promise<ReloadResult> => {
    const plan = planReload(t.config, next)
    const fail = (error: string): ReloadResult => ({ ok: false, ...version, changes: [], error })
    if (plan.refused.length > 0) return fail(plan.refused[0]!)
    if (plan.changes.length === 0) return { ok: true, ...version, changes: [] }

    // Build: pools for new and re-pointed networks, checked like at start (a node on another chain refuses).
    const newPools = new Map<string, UpstreamPool>()
    for (const n of [...plan.added, ...plan.changed.filter((c) => c.pool).map((c) => c.next)])
      newPools.set(n.name, createNetworkPool(n, next, t.upstreamUrls, t.logger))
    try {
      await Promise.all([...newPools.values()].map((p) => p.verifyChainId()))
    } catch (err) {
      await Promise.all([...newPools.values()].map((p) => p.close()))
      return fail(`networks: ${(err as Error).message}; nothing was reloaded`)
    }
    // An added Solana network without `chain` took it from its nodes.
    for (const n of next.networks) if (n.family === 'solana') n.chain ??= newPools.get(n.name)?.chain
    const poolsAfter = new Map([...t.pools, ...newPools])
    const newLayers = new Map<string, CallLayers>()
    for (const n of [...plan.added, ...plan.changed.filter((c) => c.layers).map((c) => c.next)])
      newLayers.set(n.name, layersFor(n, poolsAfter, next))
    // The new version's scrypt (./version.ts) on the thread pool, before the swap computes the version.
    await prepareConfigVersion(next)
    const costs = createCostTable(
      next.credits,
      next.networks.map((n) => n.name),
    )

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
    const plans = t.config.plans as Record<string, unknown>
    for (const name of Object.keys(plans)) if (!(name in next.plans)) delete plans[name]
    Object.assign(plans, next.plans)
    t.config.networks = next.networks
    t.config.credits = next.credits
    t.config.log.level = next.log.level
    if (plan.logLevel) t.logger.level = plan.logLevel
    version = { version: configVersion(t.config), loadedAt: new Date().toISOString() }

    // After the swap: subscriptions, plans in the key snapshot, and the old pools' retirement.
    for (const n of plan.added) t.hubs.set(n.name, createNetworkHub(n.name, { ...t, config: t.config }))
    for (const name of plan.removed) {
      t.server.closeNetworkSockets(name)
      const hub = t.hubs.get(name)
      t.hubs.delete(name)
      await hub?.close()
    }
    for (const [, o] of old) retire(o.n, o.pool, o.layers)
    const moves = plan.changed
      .filter((c) => c.pool)
      .map(async (c) => {
        const moved = await t.hubs.get(c.next.name)?.leaveRemovedNode()
        if (moved === false)
          t.logger.warn(
            { network: c.next.name },
            'reload: subscriptions could not move off a removed node yet; they move when it drops',
          )
      })
    await Promise.all(moves)
    if (plan.plans) await t.keySnapshot.reload().catch((err) => t.logger.error({ err }, 'reload: reloading keys'))
    return { ok: true, ...version, changes: plan.changes }
  }

  return {
    apply(next) {
      const result = queue.then(() =>
        run(next).catch((err: Error): ReloadResult => ({ ok: false, ...version, changes: [], error: err.message })),
      )
      queue = result
      return result
    },
    current: () => version,
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
