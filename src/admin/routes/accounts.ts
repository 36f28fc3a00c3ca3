/**
 * Accounts: create, list, get, set plan, set role, disable and enable (src/accounts/repository.ts); confirm an email,
 * reset two-factor log-in for a locked-out user, unlock one locked out by failed log-ins, list and end dashboard
 * log-ins (docs/admin-api.md).
 */
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import { createSessionsRepository } from '../../accounts/login-repository.ts'
import { createTwoFactorRepository } from '../../accounts/two-factor-repository.ts'
import { unlockLogins } from '../../accounts/login-limiter.ts'
import { errors } from '../../errors/index.ts'
import {
  Account,
  AccountSessions,
  AccountUnlock,
  CreateAccount,
  IdParams,
  SetPlan,
  SetRole,
  TwoFactorReset,
} from '../schemas.ts'

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
  const sessions = createSessionsRepository(admin.deps.db)
  const twoFactor = createTwoFactorRepository(admin.deps.db)
  app.post<Id>(
    '/accounts/:id/confirm',
    { schema: routeSchema({ tag, summary: "confirm the account's email", params: IdParams, response: Account }) },
    async (req) => {
      const a = await admin.account(req.params.id, req)
      await accounts.confirmEmail(a.id, clock.now())
      admin.note(req, { target: a.id, summary: 'email confirmed by an operator' })
      return admin.account(a.id, req)
    },
  )
  app.delete<Id>(
    '/accounts/:id/two-factor',
    {
      schema: routeSchema({
        tag,
        summary: 'turn two-factor log-in off for a locked-out user (ends their sessions)',
        params: IdParams,
        response: TwoFactorReset,
      }),
    },
    async (req) => {
      const a = await admin.account(req.params.id, req)
      const reset = await twoFactor.disable(a.id)
      await sessions.deleteAllOfAccount(a.id)
      admin.note(req, { target: a.id, summary: reset ? 'two-factor log-in reset' : 'two-factor log-in was not set up' })
      return { reset }
    },
  )
  app.post<Id>(
    '/accounts/:id/unlock',
    {
      schema: routeSchema({
        tag,
        summary: 'clear the failed log-ins (and second-factor codes) counted for its email',
        params: IdParams,
        response: AccountUnlock,
      }),
    },
    async (req) => {
      const a = await admin.account(req.params.id, req)
      const { limiters } = admin.deps
      if (!limiters) throw errors.notAvailable("the dashboard's log-in limits are not kept in this process")
      let cleared: boolean
      try {
        cleared = await unlockLogins(limiters, a.email)
      } catch {
        throw errors.notAvailable('Redis cannot be reached: the shared log-in limits were not cleared; try again')
      }
      const { scope } = limiters.login
      admin.note(req, {
        target: a.id,
        summary: `log-ins unlocked (${scope === 'redis' ? 'every replica' : 'this process'})`,
      })
      return { cleared, scope }
    },
  )
  app.get<Id>(
    '/accounts/:id/sessions',
    { schema: routeSchema({ tag, summary: 'active dashboard log-ins', params: IdParams, response: AccountSessions }) },
    async (req) => {
      const a = await admin.account(req.params.id, req)
      const list = await sessions.listByAccount(a.id, clock.now())
      return { sessions: list.map(({ idHash: _, ...s }) => s) }
    },
  )
}
