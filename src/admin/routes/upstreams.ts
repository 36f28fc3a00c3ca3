/**
 * Upstream state: each network's nodes as this process sees them (state, head, lag, error rate, latency) — the
 * probe behind /healthz, which `chaingate upstreams` reads (src/upstreams/pool/health.ts).
 */
import type { FastifyInstance } from 'fastify'
import { createHealthProbe } from '../../upstreams/pool/health.ts'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import { AnyObject } from '../schemas.ts'

export function registerUpstreamRoutes(app: FastifyInstance, admin: Admin): void {
  const { networks, pools, config, clock } = admin.deps
  const health = createHealthProbe({
    networks,
    pools,
    healthCacheMs: config.gateway.operations.healthCacheMs,
    now: () => clock.now(),
  })
  app.get(
    '/upstreams',
    {
      schema: routeSchema({
        tag: 'upstreams',
        summary: "each network's nodes: state, head, lag, error rate, latency",
        response: AnyObject,
      }),
    },
    async () => health(),
  )
}
