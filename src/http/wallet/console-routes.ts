/**
 * The wallet console's routes: the page at `/console` and its JSON API under `/console/api` (loopback Host and the
 * console token only). The page shows pending requests, sessions (with their pairing) and accounts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { renderConsolePage } from '../../console/page.ts'
import { constantTimeEqual } from '../../security/constant-time.ts'
import type { WalletServerDeps } from './server.ts'

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])

function isLoopbackHostHeader(host: string | undefined): boolean {
  if (!host) return false
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!
  return LOOPBACK_HOSTNAMES.has(name.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(name)
}

export function registerConsoleRoutes(app: FastifyInstance, deps: WalletServerDeps): void {
  const guard = (req: FastifyRequest, reply: FastifyReply, token: unknown): boolean => {
    // Loopback Host only (defeats DNS rebinding), and the token printed at start.
    if (!isLoopbackHostHeader(req.headers.host)) {
      void reply.code(403).send({ error: 'the wallet console answers only on a loopback host (127.0.0.1, localhost, [::1])' })
      return false
    }
    if (!(typeof token === 'string' && constantTimeEqual(deps.consoleToken, token))) {
      void reply.code(401).send({ error: 'missing or wrong console token' })
      return false
    }
    return true
  }
  const bearer = (req: FastifyRequest) => req.headers.authorization?.replace(/^Bearer\s+/i, '')

  app.get('/console', async (req, reply) => {
    if (!guard(req, reply, (req.query as Record<string, unknown>).token)) return reply
    return reply
      .header('content-security-policy', "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(renderConsolePage())
  })

  app.get('/console/api/state', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    return {
      accounts: deps.engine.accounts(),
      pending: await deps.store.listApprovals('pending'),
      sessions: deps.engine.sessionsSnapshot(),
      autoApprove: deps.config.autoApprove,
    }
  })

  app.post('/console/api/approvals/:id/:action', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const { id, action } = req.params as { id: string; action: string }
    if (action !== 'approve' && action !== 'reject') return reply.code(404).send({ error: 'unknown action' })
    const ok = await deps.approvals.decide(id, action === 'approve', action === 'approve' ? (req.body ?? {}) : undefined, 'console')
    if (!ok) return reply.code(409).send({ error: 'this request is no longer pending' })
    return { ok: true }
  })

  app.post('/console/api/sessions/edit', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const b = (req.body ?? {}) as { origin?: unknown; accounts?: unknown; scopes?: unknown; methods?: unknown }
    if (typeof b.origin !== 'string') return reply.code(400).send({ error: 'origin is required' })
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined)
    const methods =
      b.methods && typeof b.methods === 'object'
        ? Object.fromEntries(Object.entries(b.methods as Record<string, unknown>).map(([k, v]) => [k, strings(v) ?? []]))
        : undefined
    const ok = await deps.engine.editSession(b.origin, { accounts: strings(b.accounts), scopes: strings(b.scopes), methods })
    return ok ? { ok: true } : reply.code(404).send({ error: 'no session for this origin' })
  })

  app.post('/console/api/sessions/revoke', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const b = (req.body ?? {}) as { origin?: unknown; scopes?: unknown }
    if (typeof b.origin !== 'string') return reply.code(400).send({ error: 'origin is required' })
    const scopes = Array.isArray(b.scopes) ? b.scopes.filter((x): x is string => typeof x === 'string') : undefined
    const ok = await deps.engine.revokeOrigin(b.origin, scopes)
    return ok ? { ok: true } : reply.code(404).send({ error: 'no session for this origin' })
  })

}
