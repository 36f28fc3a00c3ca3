/**
 * The admin API (docs/admin-api.md): `/admin/v1/…`, JSON, for operators' tools (billing, support). Off — its paths
 * answer 404 like any unknown path — unless `admin.token` (or CHAINGATE_ADMIN_TOKEN) is set. Mounted on the gateway
 * listener and, when configured, on the separate operations listener too.
 *
 * Its own fastify context: the bearer check runs first on every path under the prefix (so an unknown path without
 * the token is 401, not a hint; wrong tokens are slowed per source address, ./token-guard.ts), every answer is
 * audited (./audit-hook.ts), refusals have one shape (./answers.ts), and each resource registers its routes from
 * one file under ./routes/ with schemas from ./schemas.ts, from which @fastify/swagger builds
 * /admin/v1/openapi.json. The routes call the same domain code as the CLI and the dashboard (src/accounts,
 * src/keys, src/usage).
 */
import fastifySwagger from '@fastify/swagger'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { errors } from '../errors/index.ts'
import { constantTimeEqual } from '../shared/constant-time.ts'
import { sendRefusal } from './answers.ts'
import { registerAuditHook } from './audit-hook.ts'
import { createAdmin, type Admin, type AdminDeps } from './context.ts'
import { createTokenGuard } from './token-guard.ts'
import { registerAccountRoutes } from './routes/accounts.ts'
import { registerAlertRoutes } from './routes/alerts.ts'
import { registerAuditRoutes } from './routes/audit.ts'
import { registerKeyRoutes } from './routes/keys.ts'
import { registerPlanRoutes } from './routes/plans.ts'
import { registerReloadRoutes } from './routes/reload.ts'
import { registerRequestRoutes } from './routes/requests.ts'
import { registerTeamRoutes } from './routes/teams.ts'
import { registerUpstreamRoutes } from './routes/upstreams.ts'
import { registerUsageRoutes } from './routes/usage.ts'

export type { AdminDeps } from './context.ts'

export const ADMIN_PREFIX = '/admin/v1'

/** One registrar per resource; a new resource adds its file under ./routes/ and one line here. */
const RESOURCES: ((app: FastifyInstance, admin: Admin) => void)[] = [
  registerAccountRoutes,
  registerAlertRoutes,
  registerKeyRoutes,
  registerTeamRoutes,
  registerPlanRoutes,
  registerUsageRoutes,
  registerRequestRoutes,
  registerUpstreamRoutes,
  registerAuditRoutes,
  registerReloadRoutes,
]

/** Mounts the admin API on `app` when a token is configured; otherwise nothing. */
export async function registerAdminApi(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const token = deps.config.admin.token
  if (!token) return
  await app.register(async (instance) => adminContext(instance, deps, token), { prefix: ADMIN_PREFIX })
}

async function adminContext(app: FastifyInstance, deps: AdminDeps, token: string): Promise<void> {
  const admin = createAdmin(deps)
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'chaingate admin API',
        version: '1',
        description:
          'Accounts, keys, plans, usage, usage alerts, upstream state, audit and reload (docs/admin-api.md).',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Relative: the listener that served this document (the gateway's, or gateway.operations.listen).
      servers: [{ url: '/', description: 'this chaingate (paths under /admin/v1)' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    // Every operation gets an operationId (a generated client's method name): the route's own, else one made from
    // its method and path (`POST /admin/v1/keys/:id/secret` → `postKeysIdSecret`).
    transform: ({ schema, url, route }) => ({
      url,
      schema: { ...schema, operationId: (schema as { operationId?: string }).operationId ?? operationIdOf(route, url) },
    }),
  })
  const expected = `Bearer ${token}`
  const guard = createTokenGuard({ maxFailures: deps.config.admin.tokenFailuresPerMinute })
  app.addHook('onRequest', async (req: FastifyRequest) => {
    req.adminAudit = { actor: 'anonymous' }
    // An address that guessed too often this minute is not heard, whatever it sends (./token-guard.ts).
    const now = deps.clock.now()
    const waitMs = guard.waitMs(req.ip, now)
    if (waitMs > 0) throw errors.tooManyAttempts(Math.ceil(waitMs / 1000))
    const got = req.headers.authorization
    if (got === undefined || !/^bearer /i.test(got)) throw errors.unauthorized()
    // Hashed before comparing (src/shared/constant-time.ts): neither the token nor its length leaks by timing.
    if (!constantTimeEqual(expected, `Bearer ${got.slice(7)}`)) {
      guard.failed(req.ip, now)
      throw errors.forbidden()
    }
    req.adminAudit.actor = 'admin-token'
  })
  registerAuditHook(app, deps)
  // A change (any successful non-GET) applies in this process before the client hears of it.
  const refresh = deps.refreshKeys
  if (refresh)
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.method !== 'GET' && reply.statusCode < 300) await refresh()
      return payload
    })
  app.setErrorHandler((err, _req, reply) => sendRefusal(reply, err as Error, deps.logger))
  // A route, not only a not-found handler: the dashboard's wildcard GET would otherwise answer with a web page.
  const unknown = async (req: FastifyRequest) => {
    throw errors.notFound(`route ${req.method} ${req.url.split('?')[0]}`)
  }
  app.setNotFoundHandler(unknown)
  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'],
    url: '/*',
    schema: { hide: true },
    handler: unknown,
  })
  for (const register of RESOURCES) register(app, admin)
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}

/** `GET /admin/v1/keys/:id` → `getKeysId`: unique per method and path, stable while the route is. */
function operationIdOf(route: { method: string | string[] }, url: string): string {
  const method = (Array.isArray(route.method) ? route.method[0]! : route.method).toLowerCase()
  const words = url
    .replace(ADMIN_PREFIX, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')
}
