/** The admin audit, newest first (src/audit/repository.ts): the same entries as `chaingate audit --json`. */
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { listAudit } from '../../audit/repository.ts'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import { AuditEntry, AuditQuery } from '../schemas.ts'

export function registerAuditRoutes(app: FastifyInstance, admin: Admin): void {
  app.get<{ Querystring: z.infer<typeof AuditQuery> }>(
    '/audit',
    {
      schema: routeSchema({
        tag: 'audit',
        summary: 'who changed what, when (newest first)',
        query: AuditQuery,
        response: z.object({ entries: z.array(AuditEntry) }),
      }),
    },
    async (req) => ({
      entries: await listAudit(admin.deps.db, {
        limit: req.query.limit ?? 100,
        ...(req.query.before !== undefined ? { before: req.query.before } : {}),
        ...(req.query.target !== undefined ? { target: req.query.target } : {}),
      }),
    }),
  )
}
