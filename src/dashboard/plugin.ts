/**
 * The dashboard: sign-up, log-in, API keys with their networks and security settings (docs/key-security.md), and
 * usage charts, served as plain HTML forms on the gateway listener (docs/dashboard.md).
 *
 * Registered in its own fastify context: its form parser, cookies, hooks and headers never touch the gateway
 * routes. Order of the middleware: Host check (DNS rebinding), session cookie, then the routes; every answer gets
 * the security headers. Sessions in HttpOnly SameSite=Lax cookies (Secure over TLS), a CSRF token on every POST,
 * a strict Content-Security-Policy, log-in and sign-up attempts limited, and every key looked up through the
 * logged-in account, so another account's key answers 404 exactly like a key that does not exist.
 */
import fastifyCookie from '@fastify/cookie'
import fastifyFormbody from '@fastify/formbody'
import type { FastifyInstance } from 'fastify'
import { createDash, sendPage, type DashboardDeps } from './context.ts'
import { registerHostCheck } from './middleware/hosts.ts'
import { registerDashboardAudit } from './middleware/audit.ts'
import { registerSessionMiddleware } from './middleware/session.ts'
import { errorPage } from './pages/settings.ts'
import { registerAccountRoutes } from './routes/account.ts'
import { registerAccountLinkRoutes } from './routes/account-links.ts'
import { registerTwoFactorRoutes } from './routes/two-factor.ts'
import { registerAssetRoutes } from './routes/assets.ts'
import { registerKeyActionRoutes } from './routes/key-actions.ts'
import { registerKeyRoutes } from './routes/keys.ts'
import { registerNotFoundRoute } from './routes/not-found.ts'
import { registerOperatorRoutes } from './routes/operator.ts'
import { registerSettingsRoutes } from './routes/settings.ts'
import { registerTeamRoutes } from './routes/teams.ts'
import { registerUsageRoutes } from './routes/usage.ts'
import { messagePage } from './pages/layout.ts'

export type { DashboardDeps, DashboardLogger } from './context.ts'

const CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'"

/** Largest accepted form (the biggest field is a JWT public key PEM). */
const FORM_BODY_LIMIT = 256 * 1024

export async function registerDashboard(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  await app.register(async (instance) => dashboardContext(instance, deps))
}

async function dashboardContext(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const dash = createDash(deps)

  // Forms only; the gateway's catch-all parser stays in the parent context.
  app.removeAllContentTypeParsers()
  await app.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT })
  await app.register(fastifyCookie)

  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('content-security-policy', CSP)
    reply.header('x-content-type-options', 'nosniff')
    reply.header('x-frame-options', 'DENY')
    reply.header('referrer-policy', 'same-origin')
    if (!req.url.startsWith('/assets/')) reply.header('cache-control', 'no-store')
    return payload
  })

  app.setErrorHandler(async (err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500
    if (status === 500)
      dash.logger.error(
        { err: { message: err.message, stack: err.stack }, url: req.url.split('?')[0] },
        'dashboard error',
      )
    // The page context reads the database, which may be what failed: fall back to an anonymous one.
    const ctx = await dash.pageCtx(req, '').catch(() => ({ csrfToken: '', current: '' }))
    if (status === 500) return sendPage(reply, 500, errorPage(ctx, 500))
    return sendPage(reply, status, messagePage('Something went wrong', ctx, 'The request could not be read.'))
  })

  registerHostCheck(app, dash)
  registerSessionMiddleware(app, dash)
  registerDashboardAudit(app, dash)
  registerAssetRoutes(app)
  registerAccountRoutes(app, dash)
  registerAccountLinkRoutes(app, dash)
  registerTwoFactorRoutes(app, dash)
  registerKeyRoutes(app, dash)
  registerKeyActionRoutes(app, dash)
  registerUsageRoutes(app, dash)
  registerSettingsRoutes(app, dash)
  registerOperatorRoutes(app, dash)
  registerTeamRoutes(app, dash)
  registerNotFoundRoute(app, dash)
}
