/**
 * The wallet console's routes: the page at `/console` (with its stylesheet and script), its JSON API under
 * `/console/api` and the event stream (./console-events.ts); loopback Host and the console token only
 * (./console-auth.ts). Each pending request carries its description (src/wallet/describe), which the page renders.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { formatEther, type Hex } from 'viem'
import { renderConsolePage } from '../console/page.ts'
import { describeApproval } from '../describe/index.ts'
import { eth } from '../describe/format.ts'
import { consoleAssets } from './console-assets.ts'
import { solanaBalance } from './solana-balances.ts'
import { bearer, consoleGuard, isLoopbackHostHeader } from './console-auth.ts'
import { registerConsoleEvents } from './console-events.ts'
import type { WalletServerDeps } from './deps.ts'

const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri " +
    "'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
}

export function registerConsoleRoutes(app: FastifyInstance, deps: WalletServerDeps): void {
  const guard = consoleGuard(deps.tokens)
  const env = () => ({
    chains: deps.chainAccess.chains(),
    accounts: deps.engine.accountsWithSolana(),
    solanaChains: deps.engine.servedSolanaChains(),
  })

  // The page itself holds no data (everything comes from the API with the token), so a bookmark of
  // `/console#token=…` loads it without a token in the query; a wrong `?token=` is refused at once.
  app.get('/console', async (req, reply) => {
    const token = (req.query as Record<string, unknown>).token
    if (!isLoopbackHostHeader(req.headers.host) || token !== undefined) if (!guard(req, reply, token)) return reply
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(renderConsolePage())
  })
  // Static parts of the page: no secrets in them, but still loopback only.
  const asset = (type: string, body: string) => async (req: FastifyRequest, reply: FastifyReply) => {
    if (!isLoopbackHostHeader(req.headers.host))
      return reply.code(403).send({ error: 'the wallet console answers only on a loopback host' })
    return reply.headers(PAGE_HEADERS).header('cache-control', 'no-cache').type(type).send(body)
  }
  for (const a of consoleAssets()) app.get(`/console/assets/${a.name}`, asset(a.type, a.body))

  app.get('/console/api/state', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const e = env()
    const pending = await deps.repository.listApprovals('pending')
    return {
      accounts: e.accounts,
      chains: e.chains,
      solanaChains: e.solanaChains,
      pending: pending.map((p) => ({ ...p, view: describeApproval(p.kind, p.request, e) })),
      sessions: deps.engine.sessionsSnapshot(),
      autoApprove: deps.config.autoApprove,
    }
  })

  app.get('/console/api/activity', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const chains = deps.chainAccess.chains()
    const entries = await deps.activity.list(100)
    // Solana entries carry no chain id: their summary names the request, the kind says Solana.
    return {
      entries: entries.map((a) => ({ ...a, network: chains.find((c) => c.chainId === a.chainId)?.network ?? null })),
    }
  })

  app.get('/console/api/balances', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const { chains, accounts, solanaChains } = env()
    const { solanaRequest } = deps.chainAccess
    const rows = await Promise.all(
      accounts.map(async (a) => ({
        address: a.address,
        solanaAddress: a.solanaAddress,
        index: a.index,
        label: a.label,
        solana: solanaRequest
          ? await Promise.all(solanaChains.map((c) => solanaBalance({ solanaRequest }, c, a.solanaAddress)))
          : [],
        balances: await Promise.all(
          chains.map(async (c) => {
            try {
              const wei = BigInt(
                (await deps.chainAccess.request(c.chainId, 'eth_getBalance', [a.address, 'latest'])) as Hex,
              )
              return {
                chainId: c.chainId,
                network: c.network,
                wei: wei.toString(),
                ether: formatEther(wei),
                text: eth(wei),
              }
            } catch (err) {
              return { chainId: c.chainId, network: c.network, error: (err as Error).message.split('\n')[0] }
            }
          }),
        ),
      })),
    )
    return { accounts: rows }
  })

  app.post('/console/api/approvals/:id/:action', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const { id, action } = req.params as { id: string; action: string }
    if (action !== 'approve' && action !== 'reject') return reply.code(404).send({ error: 'unknown action' })
    const ok = await deps.approvals.decide(
      id,
      action === 'approve',
      action === 'approve' ? (req.body ?? {}) : undefined,
      'console',
    )
    if (!ok) return reply.code(409).send({ error: 'this request is no longer pending' })
    return { ok: true }
  })

  app.post('/console/api/sessions/edit', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const b = (req.body ?? {}) as { origin?: unknown; accounts?: unknown; scopes?: unknown; methods?: unknown }
    if (typeof b.origin !== 'string') return reply.code(400).send({ error: 'origin is required' })
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined)
    const methods =
      b.methods && typeof b.methods === 'object'
        ? Object.fromEntries(
            Object.entries(b.methods as Record<string, unknown>).map(([k, v]) => [k, strings(v) ?? []]),
          )
        : undefined
    const ok = await deps.engine.editSession(b.origin, {
      accounts: strings(b.accounts),
      scopes: strings(b.scopes),
      methods,
    })
    return ok ? { ok: true } : reply.code(404).send({ error: 'no session for this origin' })
  })

  app.post('/console/api/sessions/revoke', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const b = (req.body ?? {}) as { origin?: unknown; scopes?: unknown }
    if (typeof b.origin !== 'string') return reply.code(400).send({ error: 'origin is required' })
    const scopes = Array.isArray(b.scopes) ? b.scopes.filter((x): x is string => typeof x === 'string') : undefined
    const ok = await deps.engine.revokeOrigin(b.origin, scopes)
    return ok ? { ok: true } : reply.code(404).send({ error: 'no session for this origin' })
  })

  /** A new console token: the old one (and every open console using it) stops working at once. */
  app.post('/console/api/token/rotate', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const token = deps.tokens.rotate()
    deps.logger.warn('wallet: console token rotated from the console')
    deps.changes.notify()
    return { token }
  })

  registerConsoleEvents(app, deps)
}
