/** Accounts: create, list, get, set plan, set role, disable and enable (src/accounts/repository.ts). */
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import { Account, CreateAccount, IdParams, SetPlan, SetRole } from '../schemas.ts'

const tag = 'accounts'
type Id = { Params: z.infer<typeof IdParams> }

export function registerAccountRoutes(app: FastifyInstance, admin: Admin): void {
  const { accounts, clock, config } = admin.deps
  app.post<{ Body: z.infer<typeof CreateAccount> }>(
    '/accounts',
    { schema: routeSchema({ tag, summary: 'create an account', body: CreateAccount, response: Account, status: 201 }) },
    async (req, reply) => {
      const a = await accounts.create(
        { email: req.body.email, plan: req.body.plan ?? config.gateway.defaultPlan },
        clock.now(),
      )
      admin.note(req, { target: a.id, summary: `created account (plan ${a.plan})` })
      return reply.code(201).send(a)
    },
  )
  app.get(
    '/accounts',
    {
      schema: routeSchema({
        tag,
        summary: 'list accounts',
        response: z.object({ accounts: z.array(Account) }),
      }),
    },
    async () => ({ accounts: await accounts.list() }),
  )
  app.get<Id>(
    '/accounts/:id',
    { schema: routeSchema({ tag, summary: 'one account (id or email)', params: IdParams, response: Account }) },
    async (req) => admin.account(req.params.id, req),
  )
  app.put<Id & { Body: z.infer<typeof SetPlan> }>(
    '/accounts/:id/plan',
    { schema: routeSchema({ tag, summary: 'set the plan', params: IdParams, body: SetPlan, response: Account }) },
    async (req) => {
      const a = await admin.account(req.params.id, req)
      await accounts.setPlan(a.id, req.body.plan)
      admin.note(req, { target: a.id, summary: `plan ${a.plan} → ${req.body.plan}` })
      return admin.account(a.id, req)
    },
  )
  app.put<Id & { Body: z.infer<typeof SetRole> }>(
    '/accounts/:id/role',
    { schema: routeSchema({ tag, summary: 'set the role', params: IdParams, body: SetRole, response: Account }) },
    async (req) => {
      const a = await admin.account(req.params.id, req)
      await accounts.setRole(a.id, req.body.role)
      admin.note(req, { target: a.id, summary: `role ${a.role} → ${req.body.role}` })
      return admin.account(a.id, req)
    },
  )
  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const)
    app.post<Id>(
      `/accounts/:id/${action}`,
      {
        schema: routeSchema({
          tag,
          summary: disabled
            ? 'disable an account (its keys and dashboard log-in are refused)'
            : 'enable a disabled account',
          params: IdParams,
          response: Account,
        }),
      },
      async (req) => {
        const a = await admin.account(req.params.id, req)
        admin.note(req, { target: a.id })
        return accounts.setDisabled(a.id, disabled, clock.now())
      },
    )
}
