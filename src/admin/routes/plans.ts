/** Plans, from the config (src/accounts/plans.ts): the same list as `chaingate plans --json`. */
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { planList } from '../../accounts/plans.ts'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'

const Plan = z.object({
  name: z.string(),
  creditsPerDay: z.number(),
  creditsPerSecond: z.number(),
  maxKeys: z.number().nullable().describe('null: unlimited'),
  maxWsConnectionsPerKey: z.number().optional().describe("absent: the gateway's (gateway.maxWsConnectionsPerKey)"),
  maxSubscriptionsPerKey: z.number().optional().describe("absent: the gateway's (gateway.maxSubscriptionsPerKey)"),
})

export function registerPlanRoutes(app: FastifyInstance, admin: Admin): void {
  app.get(
    '/plans',
    { schema: routeSchema({ tag: 'plans', summary: 'list plans', response: z.object({ plans: z.array(Plan) }) }) },
    async () => ({ plans: planList(admin.deps.config.plans) }),
  )
}
