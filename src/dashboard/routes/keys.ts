/** API key routes: the list, creating a key, and a key's page (its endpoints and settings). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ApiKey } from '../../keys/repository.ts'
import { getKeySecurity, rotateKeySecret } from '../../keys/security/repository.ts'
import { isChaingateError } from '../../errors/index.ts'
import { field, sendPage, type Dash } from '../context.ts'
import { endpointsOf } from '../endpoints.ts'
import { checkPost } from '../middleware/csrf.ts'
import { noteChange } from '../middleware/audit.ts'
import { requireTeam } from '../middleware/team.ts'
import { can } from '../../accounts/teams/roles.ts'
import { keyPage } from '../pages/key.ts'
import { keysPage } from '../pages/keys.ts'
import { unconfirmedNotice } from '../pages/account-links.ts'
import { messagePage } from '../pages/layout.ts'
import type { PageContext } from '../pages/layout.ts'
import { SNIPPET_READS, snippetsFor, snippetsSection } from '../snippets.ts'
import { queryRequests } from '../../usage/requests/queries.ts'
import { requestFilters, requestsSection, REQUESTS_PER_PAGE } from '../requests-section.ts'

export const DONE_MESSAGES: Record<string, string> = {
  renamed: 'Key renamed.',
  'network-enabled': 'Network enabled.',
  'network-disabled': 'Network disabled. The gateway refuses this key on it within a second.',
  revoked: 'Key revoked.',
  'security-saved': 'Security requirements saved.',
  'allowlist-added': 'Allowlist updated.',
  'allowlist-removed': 'Allowlist entry removed.',
  'jwt-added': 'JWT public key added.',
  'jwt-removed': 'JWT public key removed.',
  'limits-saved': 'Key credit limits saved.',
}

/** A key as a role without 'keys.use' (a viewer) sees it: its value masked, so it cannot call with it. */
const masked = (key: ApiKey): ApiKey => ({ ...key, key: `${key.key.slice(0, 4)}…${key.key.slice(-4)}` })

export const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/\.$/, '')

/** A key's page to render: the key (masked for viewers), its team's plan, and the answer to a form, if any. */
export interface KeyPageView {
  key: ApiKey
  planName: string
  status?: number
  flash?: PageContext['flash']
  newSecret?: string
}

/** Renders a key's page (also as the answer to its forms). */
export async function renderKey(
  dash: Dash,
  req: FastifyRequest,
  reply: FastifyReply,
  { key, planName, ...opts }: KeyPageView,
): Promise<FastifyReply> {
  const security = await getKeySecurity(dash.deps.db, key.id)
  const endpoints = await endpointsOf(dash, req, key)
  // The examples follow ?network= (default: the key's first enabled network); path-form URLs always resolve.
  const asked = (req.query as Record<string, string | undefined> | undefined)?.network
  const shown = endpoints.find((e) => e.network === asked) ?? endpoints.find((e) => e.enabled) ?? endpoints[0]
  const shownFamily = dash.deps.config.networks.find((n) => n.name === shown?.network)?.family ?? 'evm'
  const snippets = shown
    ? snippetsSection({
        keyId: key.id,
        network: shown.network,
        networks: endpoints.filter((e) => e.enabled).map((e) => e.network),
        items: snippetsFor(shown.pathForm, { requireSecret: security.requireSecret, family: shownFamily }),
        reads: SNIPPET_READS[shownFamily],
        requireSecret: security.requireSecret,
        requireJwt: security.requireJwt,
      })
    : undefined
  const ctx = await dash.pageCtx(req, '/keys', opts.flash)
  const requests = dash.deps.config.requests?.enabled ? await requestsOf(dash, req, key, ctx) : undefined
  return sendPage(
    reply,
    opts.status ?? 200,
    keyPage(ctx, {
      key,
      security,
      endpoints,
      snippets,
      // Keeps the chosen network in the address bar (the page script moves it to this address).
      canonical:
        shown && shown.network === asked ? `/keys/${key.id}?network=${encodeURIComponent(shown.network)}` : undefined,
      newSecret: opts.newSecret,
      plan: dash.planOf(planName),
      requests,
    }),
  )
}

/** The key's recent requests, filtered and paged by the query string (the section's own GET form). */
async function requestsOf(dash: Dash, req: FastifyRequest, key: ApiKey, ctx: PageContext) {
  const filters = requestFilters(req.query as Record<string, string | undefined> | undefined)
  const page = await queryRequests(dash.deps.db, {
    keyId: key.id,
    method: filters.method || undefined,
    status: filters.status || undefined,
    errorsOnly: filters.errors,
    limit: REQUESTS_PER_PAGE,
    offset: (filters.page - 1) * REQUESTS_PER_PAGE,
  })
  return requestsSection(key.id, filters, page, {
    operator: ctx.account?.role === 'operator',
    retentionHours: dash.deps.config.requests!.retentionHours,
  })
}

export function registerKeyRoutes(app: FastifyInstance, dash: Dash): void {
  const { clock, logger } = dash

  app.get('/keys', async (req, reply) => {
    const who = await requireTeam(dash, req, reply, 'team.read')
    if (!who) return reply
    const list = await dash.keys.list({ accountId: who.team.id, includeRevoked: true })
    const q = req.query as Record<string, string | undefined>
    const flash =
      q.confirmed === 'done'
        ? { kind: 'ok' as const, message: 'Email confirmed: you can create API keys.' }
        : q.confirm === 'sent'
          ? { kind: 'ok' as const, message: `A new confirmation link was mailed to ${who.account.email}.` }
          : undefined
    const ctx = await dash.pageCtx(req, '/keys', flash)
    const unconfirmed = dash.cfg.confirmEmail && who.account.emailConfirmedAt === null
    return sendPage(
      reply,
      200,
      keysPage(ctx, {
        keys: can(who.role, 'keys.use') ? list : list.map(masked),
        planName: who.team.plan,
        plan: dash.planOf(who.team.plan),
        networkCount: dash.networkNames.length,
        unconfirmed: unconfirmed ? unconfirmedNotice(ctx.csrfToken, who.account.email) : undefined,
      }),
    )
  })

  app.post('/keys', async (req, reply) => {
    const who = await requireTeam(dash, req, reply, 'keys.use')
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    const name = field(req.body, 'name')
    if (dash.cfg.confirmEmail && who.account.emailConfirmedAt === null) {
      const message = 'Confirm your email address first: follow the link mailed to you.'
      return sendPage(reply, 403, messagePage('Confirm your email', await dash.pageCtx(req, '/keys'), message))
    }
    try {
      const key = await dash.keys.create({ accountId: who.team.id, name }, clock.now())
      // Infura shows a new key's secret once, at creation
      // (https://docs.metamask.io/developer-tools/dashboard/how-to/secure-an-api/api-key-secret/).
      const secret = await rotateKeySecret(dash.deps.db, key.id, clock.now())
      noteChange(req, { target: key.id, summary: `key created: ${JSON.stringify(key.name)}` })
      logger.info({ accountId: who.account.id, teamId: who.team.id, keyId: key.id }, 'dashboard key created')
      return renderKey(dash, req, reply, {
        key,
        planName: who.team.plan,
        status: 201,
        flash: { kind: 'ok', message: `Key "${key.name}" created.` },
        newSecret: secret,
      })
    } catch (err) {
      if (!isChaingateError(err) || (err.code !== 'CONFLICT' && err.code !== 'VALIDATION')) throw err
      const list = await dash.keys.list({ accountId: who.team.id, includeRevoked: true })
      return sendPage(
        reply,
        err.code === 'CONFLICT' ? 409 : 400,
        keysPage(await dash.pageCtx(req, '/keys', { kind: 'error', message: `${capitalize(err.message)}.` }), {
          keys: list,
          planName: who.team.plan,
          plan: dash.planOf(who.team.plan),
          networkCount: dash.networkNames.length,
          name,
        }),
      )
    }
  })

  app.get('/keys/:id', async (req, reply) => {
    const who = await requireTeam(dash, req, reply, 'team.read')
    if (!who) return reply
    const key = await dash.ownedKey(who.team.id, (req.params as { id: string }).id)
    if (!key) return dash.notFound(req, reply)
    const done = (req.query as Record<string, string | undefined>).done
    const flash = done && DONE_MESSAGES[done] ? { kind: 'ok' as const, message: DONE_MESSAGES[done] } : undefined
    return renderKey(dash, req, reply, {
      key: can(who.role, 'keys.use') ? key : masked(key),
      planName: who.team.plan,
      flash,
    })
  })
}
