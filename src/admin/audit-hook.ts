/**
 * Every admin call is audited before its answer leaves (so a client that reads the audit next finds its own
 * call): who (the token, or `anonymous` when refused), what (method and route, the id acted on, the route's
 * summary or the route's own note), when, and the answer's status. A failure to write the audit is logged and
 * does not change the answer: the change it describes has already happened. Calls refused for a missing or wrong
 * token, or for too many wrong ones, are audited bounded (./refused-audit.ts): one row per source IP per minute,
 * with a count, and a cap on rows per minute.
 */
import type { FastifyInstance } from 'fastify'
import { recordAudit } from '../audit/repository.ts'
import type { AdminDeps } from './context.ts'
import { createRefusedAudit } from './refused-audit.ts'

export function registerAuditHook(app: FastifyInstance, deps: AdminDeps): void {
  const onError = (err: Error) => deps.logger.error({ err: { message: err.message } }, 'admin audit not written')
  const refused = createRefusedAudit(deps.db, { clock: () => deps.clock.now(), onError })
  app.addHook('onClose', () => refused.stop())
  app.addHook('onSend', async (req, reply, payload) => {
    const note = req.adminAudit ?? { actor: 'anonymous' }
    // The route's pattern (ids go to `target`); for an unknown path, the path itself.
    const pattern = req.routeOptions.url
    const route = pattern?.endsWith('/*') ? undefined : pattern
    const params = (req.params ?? {}) as { id?: unknown }
    const summary = note.summary ?? (req.routeOptions.schema as { summary?: string } | undefined)?.summary ?? ''
    const entry = {
      at: deps.clock.now(),
      actor: note.actor,
      action: `${req.method} ${route ?? req.url.split('?')[0]}`,
      target: note.target ?? (typeof params.id === 'string' ? params.id : null),
      summary,
      status: reply.statusCode,
    }
    // `anonymous`: the token check (or the guard against guesses) refused it before any route ran.
    const s = reply.statusCode
    if (note.actor === 'anonymous' && (s === 401 || s === 403 || s === 429)) await refused.record(req.ip, entry)
    else await recordAudit(deps.db, entry).catch(onError)
    return payload
  })
}
