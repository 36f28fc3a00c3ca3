/**
 * A key's recent calls from the request explorer (docs/requests.md), newest first: the rows the key's dashboard
 * page and `chaingate requests --json` show, read with the same query (src/usage/requests/queries.ts).
 */
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { queryRequests, requestJson } from '../../usage/requests/queries.ts'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import { IdParams, RequestRecord, RequestsQuery } from '../schemas.ts'

export function registerRequestRoutes(app: FastifyInstance, admin: Admin): void {
  app.get<{ Params: z.infer<typeof IdParams>; Querystring: z.infer<typeof RequestsQuery> }>(
    '/keys/:id/requests',
    {
      schema: routeSchema({
        tag: 'requests',
        summary: "a key's recent calls, newest first: status, latency, credits, who answered (docs/requests.md)",
        params: IdParams,
        query: RequestsQuery,
        response: z.object({ keyId: z.string(), requests: z.array(RequestRecord), more: z.boolean() }),
      }),
    },
    async (req) => {
      const key = await admin.key(req.params.id)
      const q = req.query
      const page = await queryRequests(admin.deps.db, {
        keyId: key.id,
        method: q.method,
        status: q.status,
        errorsOnly: q.errors,
        limit: q.limit ?? 50,
        offset: q.offset ?? 0,
      })
      return { keyId: key.id, requests: page.rows.map(requestJson), more: page.more }
    },
  )
}
