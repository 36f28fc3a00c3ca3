/**
 * The operator endpoints: `/healthz` (is every network's node answering?), `/metrics` (Prometheus) and the three
 * probes an orchestrator needs (docs/deploy.md, "Probes"): `/livez` (the process answers: never asks a node or the
 * database, so a node outage does not restart every replica), `/readyz` (route calls here: started, not draining,
 * at least one network answering) and `/startupz` (migrations and start-up done). All can be restricted
 * (docs/config.md#gateway, `operations`): a bearer token, and/or a separate listener so they are not reachable
 * where the gateway is. The probe itself (cached) is src/upstreams/pool/health.ts.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { NetworkRegistry } from '../../networks/registry.ts'
import type { Metrics } from '../../observability/metrics.ts'
import { constantTimeEqual } from '../../shared/constant-time.ts'
import { createHealthProbe } from '../../upstreams/pool/health.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import { BODIES, TEXT } from './infura-bodies.ts'
import { type OperationsExposure, withoutEmbeddedUrls } from './operations-exposure.ts'

export interface OperationsDeps {
  networks: NetworkRegistry
  pools: Map<string, UpstreamPool>
  metrics: Metrics
  /** Bearer token both endpoints require; null: open. */
  token: string | null
  /** The probes answer without the token (config gateway.operations.openProbes); /healthz and /metrics need it. */
  openProbes?: boolean
  healthCacheMs: number
  now?: () => number
  /** True once SIGTERM started a drain: /healthz answers 503 so load balancers stop sending calls (docs/deploy.md). */
  isDraining?: () => boolean
  /**
   * The database and usage ledger (src/usage/storage-health.ts); `degraded` there makes the whole answer
   * `degraded`.
   */
  storage?: () => Promise<{ status: 'ok' | 'degraded' }>
  /** True once migrations ran and every service started (/startupz, /readyz); unset: started. */
  isStarted?: () => boolean
  /** The config this process runs (`chaingate reload`, docs/config.md): shown by /healthz, read at each request. */
  configVersion?: () => { version: string; loadedAt: string } | undefined
  /** Host check and embedded-URL hiding when no token is set (./operations-exposure.ts); unset: neither. */
  exposure?: OperationsExposure | undefined
}

/**
 * Registers /healthz, /livez, /readyz, /startupz and /metrics on `app` (the gateway listener, or the separate
 * operations listener).
 */
export function registerOperations(app: FastifyInstance, deps: OperationsDeps): void {
  const health = createHealthProbe(deps)
  const expected = deps.token === null ? null : `Bearer ${deps.token}`
  const exposure = expected === null ? deps.exposure : undefined
  const allowed = async (req: FastifyRequest, reply: FastifyReply) => {
    if (exposure && !exposure.hostAllowed(req.headers.host))
      return reply.code(403).type(TEXT).send(BODIES.HOST_NOT_ALLOWED)
    if (expected === null) return
    const got = req.headers.authorization
    if (got === undefined || !constantTimeEqual(expected, got))
      return reply.code(401).header('www-authenticate', 'Bearer').type(TEXT).send(BODIES.UNAUTHORIZED)
  }
  // Kubernetes' kubelet cannot read the token from a Secret for its probes: they may answer without it.
  const probe = deps.openProbes && expected !== null ? {} : { onRequest: allowed }
  const isDraining = deps.isDraining ?? (() => false)
  app.get('/healthz', { onRequest: allowed }, async (_req, reply) => {
    if (isDraining()) return reply.code(503).header('connection', 'close').send({ status: 'draining' })
    const [probed, storage] = await Promise.all([health(), deps.storage?.()])
    const shown = exposure ? withoutEmbeddedUrls(probed, exposure.embeddedNetworks) : probed
    const config = deps.configVersion?.()
    const h = config ? { ...shown, config } : shown
    if (!storage) return reply.code(200).send(h)
    return reply
      .code(200)
      .send({ ...h, status: h.status === 'ok' && storage.status === 'ok' ? 'ok' : 'degraded', storage })
  })
  const isStarted = deps.isStarted ?? (() => true)
  app.get('/livez', probe, async (_req, reply) => reply.code(200).send({ status: 'alive' }))
  app.get('/startupz', probe, async (_req, reply) =>
    isStarted() ? reply.code(200).send({ status: 'started' }) : reply.code(503).send({ status: 'starting' }),
  )
  app.get('/readyz', probe, async (_req, reply) => {
    if (isDraining()) return reply.code(503).header('connection', 'close').send({ status: 'draining' })
    if (!isStarted()) return reply.code(503).send({ status: 'starting' })
    const { networks } = await health()
    // Degraded storage or one node down still serves (docs/deploy.md): only "no network answers" is not ready.
    const names = Object.keys(networks)
    const ready = names.length === 0 || names.some((n) => networks[n] === 'up')
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'no-network', networks })
  })
  app.get('/metrics', { onRequest: allowed }, async (_req, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  )
}

/** The separate operations listener (config gateway.operations.listen): the endpoints above and `plugins`. */
export async function startOperationsServer(
  deps: OperationsDeps & {
    host: string
    port: number
    /** Routes mounted here too (the admin API, docs/admin-api.md). */
    plugins?: ((fastify: FastifyInstance) => Promise<void> | void)[]
  },
): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false, forceCloseConnections: true })
  registerOperations(app, deps)
  for (const plugin of deps.plugins ?? []) await plugin(app)
  const url = await app.listen({ host: deps.host, port: deps.port })
  return { url, close: () => app.close() }
}
