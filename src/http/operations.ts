/**
 * The operator endpoints: `/healthz` (is every network's node answering?) and `/metrics` (Prometheus). Either can
 * be restricted (docs/config.md, "Operations endpoints"): a bearer token, and/or a separate listener so they are
 * not reachable where the gateway is. `/healthz` reuses its node probe for `healthCacheMs`, so a busy load
 * balancer does not turn into a call to every node per request.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { NetworkRegistry } from '../networks/registry.ts'
import type { Metrics } from '../observability/metrics.ts'
import { constantTimeEqual } from '../security/constant-time.ts'
import type { UpstreamPool } from '../upstreams/pool.ts'
import { BODIES, TEXT } from './infura-bodies.ts'

export interface OperationsDeps {
  networks: NetworkRegistry
  pools: Map<string, UpstreamPool>
  metrics: Metrics
  /** Bearer token both endpoints require; null: open. */
  token: string | null
  healthCacheMs: number
  now?: () => number
}

export interface Health {
  status: 'ok' | 'degraded'
  networks: Record<string, 'up' | 'down'>
}

const PROBE = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'

/** The node probe behind /healthz, shared by concurrent requests and reused for `healthCacheMs`. */
export function createHealthProbe(deps: Pick<OperationsDeps, 'networks' | 'pools' | 'healthCacheMs' | 'now'>): () => Promise<Health> {
  const now = deps.now ?? Date.now
  let cached: { at: number; health: Promise<Health> } | undefined
  const probe = async (): Promise<Health> => {
    const checks = await Promise.all(
      deps.networks.all.map(async (n) => {
        try {
          await deps.pools.get(n.name)!.send(PROBE, { timeoutMs: 2000 })
          return [n.name, 'up'] as const
        } catch {
          return [n.name, 'down'] as const
        }
      }),
    )
    return { status: checks.every(([, s]) => s === 'up') ? 'ok' : 'degraded', networks: Object.fromEntries(checks) }
  }
  return () => {
    const t = now()
    if (cached === undefined || t - cached.at >= deps.healthCacheMs) cached = { at: t, health: probe() }
    return cached.health
  }
}

/** Registers /healthz and /metrics on `app` (the gateway listener, or the separate operations listener). */
export function registerOperations(app: FastifyInstance, deps: OperationsDeps): void {
  const health = createHealthProbe(deps)
  const expected = deps.token === null ? null : `Bearer ${deps.token}`
  const allowed = async (req: FastifyRequest, reply: FastifyReply) => {
    if (expected === null) return
    const got = req.headers.authorization
    if (got === undefined || !constantTimeEqual(expected, got))
      return reply.code(401).header('www-authenticate', 'Bearer').type(TEXT).send(BODIES.UNAUTHORIZED)
  }
  app.get('/healthz', { onRequest: allowed }, async (_req, reply) => reply.code(200).send(await health()))
  app.get('/metrics', { onRequest: allowed }, async (_req, reply) => reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()))
}

/** The separate operations listener (config gateway.operations.listen): only /healthz and /metrics. */
export async function startOperationsServer(deps: OperationsDeps & { host: string; port: number }): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false, forceCloseConnections: true })
  registerOperations(app, deps)
  const url = await app.listen({ host: deps.host, port: deps.port })
  return { url, close: () => app.close() }
}
