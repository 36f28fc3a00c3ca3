/**
 * Is every network's node answering? One `eth_chainId` (Solana: `getHealth`) per network, shared by concurrent
 * askers and reused for `healthCacheMs`, so a busy load balancer polling /healthz does not turn into a call to every
 * node per request. Each node's own state comes along (src/upstreams/pool/pool.ts: rate-limited, auth-failed,
 * wrong-chain-id, …); any node out of rotation makes the status `degraded`, though its network may still be up.
 */
import type { NetworkRegistry } from '../../networks/registry.ts'
import type { ChainFamily } from '../../shared/chain-family.ts'
import { FAMILY_RULES } from './family-rules.ts'
import type { UpstreamPool, UpstreamStatus } from './pool.ts'

export interface Health {
  status: 'ok' | 'degraded'
  networks: Record<string, 'up' | 'down'>
  /** Per network, each node (URL without credentials) and its state. */
  upstreams: Record<string, UpstreamStatus[]>
}

/** Per family, the call every healthy node answers (eth_chainId, Solana's getHealth). */
const PROBES = Object.fromEntries(
  Object.values(FAMILY_RULES).map((r) => [r.family, JSON.stringify({ jsonrpc: '2.0', id: 1, ...r.liveness })]),
) as Record<ChainFamily, string>

export function createHealthProbe(deps: {
  networks: NetworkRegistry
  pools: Map<string, UpstreamPool>
  healthCacheMs: number
  now?: (() => number) | undefined
}): () => Promise<Health> {
  const now = deps.now ?? Date.now
  let cached: { at: number; health: Promise<Health> } | undefined
  const probe = async (): Promise<Health> => {
    const checks = await Promise.all(
      deps.networks.all.map(async (n) => {
        try {
          await deps.pools.get(n.name)!.send(PROBES[n.family], { timeoutMs: 2000 })
          return [n.name, 'up'] as const
        } catch {
          return [n.name, 'down'] as const
        }
      }),
    )
    const upstreams = Object.fromEntries(deps.networks.all.map((n) => [n.name, deps.pools.get(n.name)!.status()]))
    const allUp =
      checks.every(([, s]) => s === 'up') &&
      Object.values(upstreams).every((list) => list.every((u) => u.state === 'healthy'))
    return { status: allUp ? 'ok' : 'degraded', networks: Object.fromEntries(checks), upstreams }
  }
  return () => {
    const t = now()
    if (cached === undefined || t - cached.at >= deps.healthCacheMs) cached = { at: t, health: probe() }
    return cached.health
  }
}
