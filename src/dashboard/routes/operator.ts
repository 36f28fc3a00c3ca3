/**
 * The operators' page: every account with its keys and today's credits, and a form per account to change its
 * plan. Operators are made with `chaingate account set-role <email> operator` (docs/dashboard.md); to anyone else
 * these paths answer 404 like a page that does not exist.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Account } from '../../accounts/repository.ts'
import { creditsTodayByAccountAndKey } from '../../usage/queries.ts'
import { isChaingateError } from '../../errors/index.ts'
import { capitalize } from './keys.ts'
import { field, sendPage, type Dash } from '../context.ts'
import { checkPost } from '../middleware/csrf.ts'
import { noteChange } from '../middleware/audit.ts'
import { requireAccount } from '../middleware/session.ts'
import { accountsPage } from '../pages/settings.ts'
import type { PageContext } from '../pages/layout.ts'

export function registerOperatorRoutes(app: FastifyInstance, dash: Dash): void {
  const { clock, logger } = dash

  const requireOperator = async (
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<Awaited<ReturnType<typeof requireAccount>>> => {
    const who = await requireAccount(dash, req, reply)
    if (!who) return null
    if (who.account.role === 'operator') return who
    await dash.notFound(req, reply)
    return null
  }

  const render = async (req: FastifyRequest, reply: FastifyReply, status = 200, flash?: PageContext['flash']) => {
    const accounts = await dash.accounts.list()
    const today = await creditsTodayByAccountAndKey(dash.deps.db, clock.now())
    const listed = new Set(accounts.map((a) => a.id))
    let total = 0
    let deleted = 0
    for (const [id, credits] of today.accounts) {
      total += credits
      if (!listed.has(id)) deleted += credits
    }
    const rows = await Promise.all(
      accounts.map(async (account: Account) => ({
        account,
        activeKeys: (await dash.keys.list({ accountId: account.id })).length,
        creditsToday: today.accounts.get(account.id) ?? 0,
      })),
    )
    return sendPage(
      reply,
      status,
      accountsPage(await dash.pageCtx(req, '/accounts', flash), {
        rows,
        plans: dash.deps.config.plans,
        totalCreditsToday: total,
        deletedCreditsToday: deleted,
      }),
    )
  }

  app.get('/accounts', async (req, reply) => {
    if (!(await requireOperator(req, reply))) return reply
    const q = req.query as Record<string, string | undefined>
    const changed = q.changed ? await dash.accounts.get(q.changed) : undefined
    return render(
      req,
      reply,
      200,
      changed ? { kind: 'ok', message: `${changed.email} is now on the ${changed.plan} plan.` } : undefined,
    )
  })

  app.post('/accounts/:id/plan', async (req, reply) => {
    const who = await requireOperator(req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    const id = (req.params as { id: string }).id
    const target = /^[A-Za-z0-9-]{1,64}$/.test(id) ? await dash.accounts.get(id) : undefined
    if (!target) return dash.notFound(req, reply)
    try {
      await dash.accounts.setPlan(target.id, field(req.body, 'plan'))
    } catch (err) {
      if (!isChaingateError(err) || err.code !== 'VALIDATION') throw err
      return render(req, reply, 400, { kind: 'error', message: `${capitalize(err.message)}.` })
    }
    noteChange(req, { target: target.id, summary: `plan set to ${field(req.body, 'plan')} (${target.email})` })
    logger.info(
      { operatorId: who.account.id, accountId: target.id, plan: field(req.body, 'plan') },
      'dashboard plan changed by operator',
    )
    return reply.redirect(`/accounts?changed=${encodeURIComponent(target.id)}`, 303)
  })
}
