/** The usage page: charts and totals for one account over 24 h, 7 d or 30 d (src/usage/queries.ts). */
import type { FastifyInstance } from 'fastify'
import {
  bucketsFor,
  creditsUsedToday,
  dailyCredits,
  usageReport,
  USAGE_DIMENSIONS,
  USAGE_RANGES,
  type UsageDimension,
  type UsageRange,
} from '../../usage/queries.ts'
import { queryUpstreamUsage } from '../../usage/upstream-usage-report.ts'
import { sendPage, type Dash } from '../context.ts'
import { requireTeam } from '../middleware/team.ts'
import { usagePage } from '../pages/usage.ts'

export function registerUsageRoutes(app: FastifyInstance, dash: Dash): void {
  const { db } = dash.deps
  app.get('/usage', async (req, reply) => {
    const who = await requireTeam(dash, req, reply, 'team.read')
    if (!who) return reply
    const q = req.query as Record<string, string | undefined>
    const range: UsageRange = USAGE_RANGES.includes(q.range as UsageRange) ? (q.range as UsageRange) : '24h'
    const dimension: UsageDimension = USAGE_DIMENSIONS.includes(q.by as UsageDimension)
      ? (q.by as UsageDimension)
      : 'method'
    let keyId: string | undefined
    if (q.key) {
      if (!(await dash.ownedKey(who.team.id, q.key))) return dash.notFound(req, reply)
      keyId = q.key
    }
    const now = dash.clock.now()
    const allKeys = await dash.keys.list({ accountId: who.team.id, includeRevoked: true })
    // Operators also see what each upstream cost over the same period (the whole gateway, every account).
    const buckets = bucketsFor(range, now)
    const upstreams =
      who.account.role === 'operator'
        ? await queryUpstreamUsage(db, {
            fromSec: buckets.starts[0]!,
            toSec: buckets.starts[buckets.starts.length - 1]! + buckets.size,
          })
        : undefined
    return sendPage(
      reply,
      200,
      usagePage(await dash.pageCtx(req, '/usage'), {
        report: await usageReport(db, { accountId: who.team.id, range, dimension, keyId, nowMs: now }),
        range,
        dimension,
        keyId,
        keys: allKeys.map((k) => ({ id: k.id, name: k.revokedAt === null ? k.name : `${k.name} (revoked)` })),
        usedToday: await creditsUsedToday(db, who.team.id, now),
        plan: dash.planOf(who.team.plan),
        daily: await dailyCredits(db, who.team.id, range === '30d' ? 30 : 7, now),
        upstreams,
      }),
    )
  })
}
