/**
 * Usage: one UTC day per method, network, key or upstream (the report `chaingate usage --json` prints:
 * src/usage/day-report.ts), and one account over the dashboard's periods (the numbers of its usage page:
 * src/usage/queries.ts `usageReport`).
 */
import type { FastifyInstance } from 'fastify'
import type { z } from 'zod'
import { dayUsageReport, utcDay } from '../../usage/day-report.ts'
import { usageReport } from '../../usage/queries.ts'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import { AccountUsageQuery, AnyObject, IdParams, UsageQuery } from '../schemas.ts'

const tag = 'usage'

export function registerUsageRoutes(app: FastifyInstance, admin: Admin): void {
  const { db, clock, config } = admin.deps
  app.get<{ Querystring: z.infer<typeof UsageQuery> }>(
    '/usage',
    {
      schema: routeSchema({
        tag,
        summary: 'one UTC day: calls, credits and errors per method, network, key or upstream',
        query: UsageQuery,
        response: AnyObject,
      }),
    },
    async (req) => {
      const q = req.query
      const now = clock.now()
      const account = q.account ? await admin.account(q.account, req) : undefined
      const key = q.key ? await admin.key(q.key) : undefined
      return dayUsageReport(db, {
        day: q.day ?? utcDay(now),
        by: q.by ?? 'method',
        accountId: account?.id,
        keyId: key?.id,
        owner: account ?? (key ? await admin.deps.accounts.get(key.accountId) : undefined),
        plans: config.plans,
        nowMs: now,
      })
    },
  )
  app.get<{ Params: z.infer<typeof IdParams>; Querystring: z.infer<typeof AccountUsageQuery> }>(
    '/accounts/:id/usage',
    {
      schema: routeSchema({
        tag,
        summary: "one account over 24h, 7d or 30d, as its dashboard's usage page",
        params: IdParams,
        query: AccountUsageQuery,
        response: AnyObject,
      }),
    },
    async (req) => {
      const account = await admin.account(req.params.id, req)
      const keyId = req.query.key ? (await admin.key(req.query.key)).id : undefined
      return usageReport(db, {
        accountId: account.id,
        range: req.query.range ?? '24h',
        dimension: req.query.by ?? 'method',
        keyId,
        nowMs: clock.now(),
      })
    },
  )
}
