/**
 * The dashboard (issue 4; ../shared/reference/infura.md §7): sign-up, log-in, API keys with their networks and
 * security settings (I§4), and usage charts, served as plain HTML forms on the gateway listener.
 *
 * Registered in its own fastify context: its form parser, hooks and headers never touch the gateway routes.
 * Security: sessions in HttpOnly SameSite=Lax cookies (Secure over TLS), a CSRF token on every POST, a strict
 * Content-Security-Policy, failed logins limited per email and per IP, and every key looked up through the
 * logged-in account, so another account's key answers 404 exactly like a key that does not exist.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createAccountsRepository, type AccountsRepository } from '../accounts/repository.ts'
import { createKeysRepository, type ApiKey, type KeysRepository } from '../api-keys/repository.ts'
import {
  addAllowlistEntriesTo,
  getKeySecurity,
  removeAllowlistEntry,
  removeJwtKey,
  rotateKeySecret,
  setSecurityFlags,
  addJwtKey,
} from '../api-keys/security/repository.ts'
import { ALLOWLIST_TYPES, type AllowlistType } from '../api-keys/security/types.ts'
import type { DashboardConfig } from '../config/dashboard-schema.ts'
import type { PlanConfig } from '../config/schema.ts'
import type { Db } from '../db/database.ts'
import { errors, isChaingateError } from '../errors/index.ts'
import { CSS, FAVICON_SVG, JS } from './assets.ts'
import { checkLogin, setAccountPassword } from './auth/credentials.ts'
import { createLoginLimiter } from './auth/login-limiter.ts'
import { passwordProblem } from './auth/passwords.ts'
import {
  createSession,
  deleteSession,
  findSession,
  PRELOGIN_CSRF_COOKIE,
  randomToken,
  SESSION_COOKIE,
  tokensEqual,
  type Session,
} from './auth/sessions.ts'
import {
  keyPage,
  keysPage,
  landingPage,
  loginPage,
  messagePage,
  overviewPage,
  signupPage,
  usagePage,
  type EndpointUrls,
  type PageContext,
} from './pages.ts'
import { creditsUsedToday, dailyCredits, usageReport, USAGE_DIMENSIONS, USAGE_RANGES, type UsageDimension, type UsageRange } from './usage.ts'

/** Minimal logger shape (pino's Logger fits). */
export interface DashboardLogger {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
  error(obj: object, msg?: string): void
}

export interface DashboardDeps {
  db: Db
  /** The parts of the chaingate config the dashboard reads; the whole `Config` fits. */
  config: {
    networks: { name: string; hosts?: string[] | undefined }[]
    plans: Record<string, PlanConfig>
    gateway: { defaultPlan: string }
    dashboard: DashboardConfig
  }
  clock: { now(): number }
  logger: DashboardLogger
  /** Reuse the app's repositories; created from `db` when omitted. */
  accounts?: AccountsRepository
  keys?: KeysRepository
}

type FormBody = Record<string, string | string[]>

declare module 'fastify' {
  interface FastifyRequest {
    dashboardSession?: Session | null
  }
}

const CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

export async function registerDashboard(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  await app.register(async (instance) => dashboardRoutes(instance, deps))
}

async function dashboardRoutes(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { db, clock, logger } = deps
  const cfg = deps.config.dashboard
  const networkNames = deps.config.networks.map((n) => n.name)
  const accounts = deps.accounts ?? createAccountsRepository(db, deps.config.plans)
  const keys = deps.keys ?? createKeysRepository(db, { networks: networkNames, plans: deps.config.plans })
  const limiter = createLoginLimiter({ maxFailures: cfg.loginAttemptsPerMinute, windowMs: 60_000 })
  const sessionTtlMs = cfg.sessionTtlHours * 3_600_000

  // Forms only; the gateway's catch-all parser stays in the parent context.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 256 * 1024 }, (_req, body, done) => {
    const form: FormBody = {}
    for (const [k, v] of new URLSearchParams(body as string)) {
      const prev = form[k]
      form[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]
    }
    done(null, form)
  })

  app.addHook('onRequest', async (req) => {
    req.dashboardSession = await findSession(db, cookies(req)[SESSION_COOKIE], clock.now())
  })

  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('content-security-policy', CSP)
    reply.header('x-content-type-options', 'nosniff')
    reply.header('x-frame-options', 'DENY')
    reply.header('referrer-policy', 'same-origin')
    if (!req.url.startsWith('/assets/')) reply.header('cache-control', 'no-store')
    return payload
  })

  app.setErrorHandler(async (err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500
    if (status === 500) logger.error({ err: { message: err.message, stack: err.stack }, url: req.url.split('?')[0] }, 'dashboard error')
    return sendPage(reply, status, messagePage('Something went wrong', await ctx(req, ''), status === 500 ? 'The dashboard hit an internal error. Try again.' : 'The request could not be read.'))
  })

  // ---- helpers ----

  const ctx = async (req: FastifyRequest, current: string, flash?: PageContext['flash']): Promise<PageContext> => {
    const session = req.dashboardSession
    if (session) {
      const account = await accounts.get(session.accountId)
      if (account) return { account, csrfToken: session.csrfToken, current, flash }
    }
    return { csrfToken: '', current, flash }
  }

  /** A pre-login page gets a fresh double-submit CSRF cookie and the same value in its form. */
  const preloginCtx = (req: FastifyRequest, reply: FastifyReply, current: string, flash?: PageContext['flash']): PageContext => {
    const token = cookies(req)[PRELOGIN_CSRF_COOKIE] || randomToken()
    setCookie(req, reply, PRELOGIN_CSRF_COOKIE, token, 3600)
    return { csrfToken: token, current, flash }
  }

  const requireAccount = async (req: FastifyRequest, reply: FastifyReply) => {
    const session = req.dashboardSession
    const account = session ? await accounts.get(session.accountId) : undefined
    if (!session || !account) {
      if (req.method === 'GET') {
        const next = req.url.startsWith('/') && !req.url.startsWith('//') ? req.url : '/'
        await reply.redirect(`/login?next=${encodeURIComponent(next)}`, 303)
      } else {
        await sendPage(reply, 403, messagePage('Not logged in', { csrfToken: '', current: '' }, 'Your session has ended. Log in again.'))
      }
      return null
    }
    return { session, account }
  }

  /** Every authenticated POST: same-origin (when the browser says) and the session's CSRF token. */
  const checkPost = async (req: FastifyRequest, reply: FastifyReply, expected: string | undefined): Promise<boolean> => {
    if (!sameOrigin(req) || !tokensEqual(field(req.body, '_csrf'), expected)) {
      logger.warn({ url: req.url.split('?')[0], ip: req.ip }, 'dashboard form refused: CSRF token missing or wrong')
      await sendPage(
        reply,
        403,
        messagePage('Form expired', await ctx(req, ''), 'This form is missing its security token or has expired. Reload the page and try again.'),
      )
      return false
    }
    return true
  }

  const planOf = (planName: string): PlanConfig =>
    deps.config.plans[planName] ?? { creditsPerDay: 0, creditsPerSecond: 0, maxKeys: 0 }

  /** The key, only if the logged-in account owns it; anything else is a 404 indistinguishable from "no such key". */
  const ownedKey = async (accountId: string, id: string): Promise<ApiKey | undefined> => {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined
    const key = await keys.get(id)
    return key && key.accountId === accountId ? key : undefined
  }

  const notFound = async (req: FastifyRequest, reply: FastifyReply) =>
    sendPage(reply, 404, messagePage('Not found', await ctx(req, ''), 'There is no such page or API key.'))

  const endpointsOf = (req: FastifyRequest, key: ApiKey): EndpointUrls[] => {
    const base = new URL(cfg.publicBaseUrl ?? `${req.protocol}://${req.host}`)
    const origin = base.origin
    const prefix = base.pathname.replace(/\/$/, '')
    const ws = (u: string) => u.replace(/^http/, 'ws')
    return deps.config.networks.map((n) => {
      const host = (n.hosts ?? [`${n.name}.localhost`])[0]!
      const hostOrigin = `${base.protocol}//${host}${base.port && !host.includes(':') ? `:${base.port}` : ''}`
      return {
        network: n.name,
        enabled: key.networks.includes(n.name),
        hostForm: `${hostOrigin}${prefix}/v3/${key.key}`,
        pathForm: `${origin}${prefix}/networks/${n.name}/v3/${key.key}`,
        wsHostForm: ws(`${hostOrigin}${prefix}/ws/v3/${key.key}`),
        wsPathForm: ws(`${origin}${prefix}/ws/networks/${n.name}/v3/${key.key}`),
      }
    })
  }

  const renderKey = async (
    req: FastifyRequest,
    reply: FastifyReply,
    key: ApiKey,
    planName: string,
    opts: { status?: number; flash?: PageContext['flash']; newSecret?: string } = {},
  ) => {
    const security = await getKeySecurity(db, key.id)
    return sendPage(
      reply,
      opts.status ?? 200,
      keyPage(await ctx(req, '/keys', opts.flash), {
        key,
        security,
        endpoints: endpointsOf(req, key),
        newSecret: opts.newSecret,
        plan: planOf(planName),
      }),
    )
  }

  // ---- static ----

  app.get('/assets/app.css', async (_req, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CSS))
  app.get('/assets/favicon.svg', async (_req, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON_SVG),
  )
  app.get('/assets/app.js', async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(JS),
  )

  // ---- account ----

  app.get('/', async (req, reply) => {
    if (!req.dashboardSession) return sendPage(reply, 200, landingPage(await ctx(req, '/'), cfg.signup))
    const who = await requireAccount(req, reply)
    if (!who) return reply
    const now = clock.now()
    const active = await keys.list({ accountId: who.account.id })
    return sendPage(
      reply,
      200,
      overviewPage(await ctx(req, '/'), {
        planName: who.account.plan,
        plan: planOf(who.account.plan),
        usedToday: await creditsUsedToday(db, who.account.id, now),
        activeKeys: active.length,
        daily: await dailyCredits(db, who.account.id, 7, now),
      }),
    )
  })

  app.get('/signup', async (req, reply) => {
    if (req.dashboardSession) return reply.redirect('/keys', 303)
    return sendPage(reply, 200, signupPage(preloginCtx(req, reply, '/signup'), { enabled: cfg.signup }))
  })

  app.post('/signup', async (req, reply) => {
    if (!cfg.signup) return sendPage(reply, 403, signupPage(preloginCtx(req, reply, '/signup'), { enabled: false }))
    if (!sameOrigin(req) || !tokensEqual(field(req.body, '_csrf'), cookies(req)[PRELOGIN_CSRF_COOKIE]))
      return sendPage(reply, 403, messagePage('Form expired', preloginCtx(req, reply, ''), 'This form is missing its security token or has expired. Reload the page and try again.'))
    const email = field(req.body, 'email').trim().toLowerCase()
    const password = field(req.body, 'password')
    const fail = (status: number, message: string) =>
      sendPage(reply, status, signupPage(preloginCtx(req, reply, '/signup', { kind: 'error', message }), { email, enabled: true }))
    const problem = passwordProblem(password)
    if (problem) return fail(400, `Choose another password: ${problem}.`)
    let accountId: string
    try {
      accountId = (await accounts.create({ email, plan: deps.config.gateway.defaultPlan }, clock.now())).id
    } catch (err) {
      if (isChaingateError(err) && err.code === 'CONFLICT') return fail(409, 'An account with this email already exists. Log in instead.')
      if (isChaingateError(err) && err.code === 'VALIDATION') return fail(400, 'Enter a valid email address.')
      throw err
    }
    await setAccountPassword(db, accountId, password, clock.now())
    logger.info({ accountId }, 'dashboard sign-up')
    await startSession(req, reply, accountId)
    return reply.redirect('/keys', 303)
  })

  app.get('/login', async (req, reply) => {
    if (req.dashboardSession) return reply.redirect('/keys', 303)
    const next = safeNext((req.query as Record<string, string | undefined>).next)
    return sendPage(reply, 200, loginPage(preloginCtx(req, reply, '/login'), { next }))
  })

  app.post('/login', async (req, reply) => {
    const email = field(req.body, 'email').trim().toLowerCase()
    const password = field(req.body, 'password')
    const next = safeNext(field(req.body, 'next'))
    if (!sameOrigin(req) || !tokensEqual(field(req.body, '_csrf'), cookies(req)[PRELOGIN_CSRF_COOKIE]))
      return sendPage(reply, 403, loginPage(preloginCtx(req, reply, '/login', { kind: 'error', message: 'The form expired. Try again.' }), { email, next }))
    const now = clock.now()
    const subjects = [`email:${email}`, `ip:${req.ip}`]
    const waitMs = limiter.retryAfterMs(subjects, now)
    if (waitMs > 0) {
      logger.warn({ ip: req.ip }, 'dashboard login rate limited')
      reply.header('retry-after', String(Math.ceil(waitMs / 1000)))
      return sendPage(
        reply,
        429,
        loginPage(
          preloginCtx(req, reply, '/login', {
            kind: 'error',
            message: `Too many failed log-ins for this email or from your address. Try again in ${Math.ceil(waitMs / 1000)} seconds.`,
          }),
          { email, next },
        ),
      )
    }
    const accountId = email && password ? await checkLogin(db, email, password) : null
    if (!accountId) {
      limiter.recordFailure(subjects, now)
      logger.info({ ip: req.ip }, 'dashboard login failed')
      return sendPage(reply, 401, loginPage(preloginCtx(req, reply, '/login', { kind: 'error', message: 'The email or password is wrong.' }), { email, next }))
    }
    limiter.reset(`email:${email}`)
    await startSession(req, reply, accountId)
    logger.info({ accountId }, 'dashboard login')
    return reply.redirect(next ?? '/keys', 303)
  })

  const startSession = async (req: FastifyRequest, reply: FastifyReply, accountId: string) => {
    // A new id at every login (no session fixation); the old one, if any, is dropped.
    if (req.dashboardSession) await deleteSession(db, req.dashboardSession.idHash)
    const { cookieValue } = await createSession(db, accountId, clock.now(), sessionTtlMs)
    setCookie(req, reply, SESSION_COOKIE, cookieValue, Math.floor(sessionTtlMs / 1000))
    setCookie(req, reply, PRELOGIN_CSRF_COOKIE, '', 0)
  }

  app.post('/logout', async (req, reply) => {
    const session = req.dashboardSession
    if (!session) return reply.redirect('/login', 303)
    if (!(await checkPost(req, reply, session.csrfToken))) return reply
    await deleteSession(db, session.idHash)
    setCookie(req, reply, SESSION_COOKIE, '', 0)
    return reply.redirect('/login', 303)
  })

  // ---- keys ----

  app.get('/keys', async (req, reply) => {
    const who = await requireAccount(req, reply)
    if (!who) return reply
    const list = await keys.list({ accountId: who.account.id, includeRevoked: true })
    return sendPage(
      reply,
      200,
      keysPage(await ctx(req, '/keys'), { keys: list, planName: who.account.plan, plan: planOf(who.account.plan), networkCount: networkNames.length }),
    )
  })

  app.post('/keys', async (req, reply) => {
    const who = await requireAccount(req, reply)
    if (!who || !(await checkPost(req, reply, who.session.csrfToken))) return reply
    const name = field(req.body, 'name')
    try {
      const key = await keys.create({ accountId: who.account.id, name }, clock.now())
      // Infura shows a new key's secret once, at creation (I§4.1).
      const secret = await rotateKeySecret(db, key.id, clock.now())
      logger.info({ accountId: who.account.id, keyId: key.id }, 'dashboard key created')
      return renderKey(req, reply, key, who.account.plan, { status: 201, flash: { kind: 'ok', message: `Key "${key.name}" created.` }, newSecret: secret })
    } catch (err) {
      if (!isChaingateError(err) || (err.code !== 'CONFLICT' && err.code !== 'VALIDATION')) throw err
      const list = await keys.list({ accountId: who.account.id, includeRevoked: true })
      return sendPage(
        reply,
        err.code === 'CONFLICT' ? 409 : 400,
        keysPage(await ctx(req, '/keys', { kind: 'error', message: capitalize(err.message) + '.' }), {
          keys: list,
          planName: who.account.plan,
          plan: planOf(who.account.plan),
          networkCount: networkNames.length,
          name,
        }),
      )
    }
  })

  app.get('/keys/:id', async (req, reply) => {
    const who = await requireAccount(req, reply)
    if (!who) return reply
    const key = await ownedKey(who.account.id, (req.params as { id: string }).id)
    if (!key) return notFound(req, reply)
    const done = (req.query as Record<string, string | undefined>).done
    const flash = done && DONE_MESSAGES[done] ? { kind: 'ok' as const, message: DONE_MESSAGES[done] } : undefined
    return renderKey(req, reply, key, who.account.plan, { flash })
  })

  /** One POST action on an owned, active key: auth, CSRF, ownership, then `run`; a validation error re-renders the page. */
  const keyAction = (
    action: string,
    run: (key: ApiKey, body: unknown, req: FastifyRequest, reply: FastifyReply, planName: string) => Promise<string | FastifyReply>,
  ) =>
    app.post(`/keys/:id/${action}`, async (req, reply) => {
      const who = await requireAccount(req, reply)
      if (!who) return reply
      const key = await ownedKey(who.account.id, (req.params as { id: string }).id)
      if (!key) return notFound(req, reply)
      if (!(await checkPost(req, reply, who.session.csrfToken))) return reply
      if (key.revokedAt !== null)
        return renderKey(req, reply, key, who.account.plan, { status: 409, flash: { kind: 'error', message: 'This key is revoked and can no longer be changed.' } })
      try {
        const result = await run(key, req.body, req, reply, who.account.plan)
        if (typeof result !== 'string') return result
        logger.info({ accountId: who.account.id, keyId: key.id, action }, 'dashboard key changed')
        return reply.redirect(`/keys/${key.id}?done=${result}`, 303)
      } catch (err) {
        if (!isChaingateError(err) || (err.code !== 'VALIDATION' && err.code !== 'CONFLICT')) throw err
        const fresh = (await keys.get(key.id)) ?? key
        return renderKey(req, reply, fresh, who.account.plan, { status: 400, flash: { kind: 'error', message: capitalize(err.message) + '.' } })
      }
    })

  keyAction('rename', async (key, body) => {
    await keys.rename(key.id, field(body, 'name'))
    return 'renamed'
  })

  keyAction('networks', async (key, body) => {
    const network = field(body, 'network')
    if (!networkNames.includes(network)) throw validation('Unknown network')
    await keys.setNetwork(key.id, network, field(body, 'enabled') === 'true')
    return field(body, 'enabled') === 'true' ? 'network-enabled' : 'network-disabled'
  })

  keyAction('revoke', async (key, body) => {
    if (field(body, 'confirm') !== 'yes') throw validation('Tick the confirmation box to revoke the key')
    await keys.revoke(key.id, clock.now())
    return 'revoked'
  })

  keyAction('secret', async (key, _body, req, reply, planName) => {
    const secret = await rotateKeySecret(db, key.id, clock.now())
    logger.info({ keyId: key.id }, 'dashboard key secret rotated')
    return renderKey(req, reply, key, planName, { flash: { kind: 'ok', message: 'New secret created.' }, newSecret: secret })
  })

  keyAction('security', async (key, body) => {
    await setSecurityFlags(
      db,
      key.id,
      {
        requireSecret: field(body, 'requireSecret') === 'on',
        secretOverridesAllowlists: field(body, 'secretOverridesAllowlists') === 'on',
        requireJwt: field(body, 'requireJwt') === 'on',
      },
      clock.now(),
    )
    return 'security-saved'
  })

  keyAction('allowlists', async (key, body) => {
    const type = allowlistType(field(body, 'type'))
    const entries = field(body, 'entries').split(/[\s,]+/).filter((e) => e !== '')
    if (entries.length === 0) throw validation('Enter at least one entry')
    await addAllowlistEntriesTo(db, key.id, type, entries, clock.now())
    return 'allowlist-added'
  })

  keyAction('allowlists/remove', async (key, body) => {
    await removeAllowlistEntry(db, key.id, allowlistType(field(body, 'type')), field(body, 'entry'), clock.now())
    return 'allowlist-removed'
  })

  keyAction('jwt', async (key, body) => {
    await addJwtKey(db, key.id, { name: field(body, 'name'), alg: field(body, 'alg'), publicKeyPem: field(body, 'publicKeyPem') }, clock.now())
    return 'jwt-added'
  })

  keyAction('jwt/remove', async (key, body) => {
    await removeJwtKey(db, key.id, field(body, 'jwtKeyId'), clock.now())
    return 'jwt-removed'
  })

  keyAction('limits', async (key, body) => {
    const parse = (name: string) => {
      const raw = field(body, name).trim()
      if (raw === '') return 0
      if (!/^\d{1,15}$/.test(raw)) throw validation('Limits are whole numbers of credits (0 for the plan default)')
      return Number(raw)
    }
    await keys.setLimits(key.id, { creditsPerSecond: parse('creditsPerSecond'), creditsPerDay: parse('creditsPerDay') })
    return 'limits-saved'
  })

  // ---- usage ----

  app.get('/usage', async (req, reply) => {
    const who = await requireAccount(req, reply)
    if (!who) return reply
    const q = req.query as Record<string, string | undefined>
    const range: UsageRange = USAGE_RANGES.includes(q.range as UsageRange) ? (q.range as UsageRange) : '24h'
    const dimension: UsageDimension = USAGE_DIMENSIONS.includes(q.by as UsageDimension) ? (q.by as UsageDimension) : 'method'
    let keyId: string | undefined
    if (q.key) {
      if (!(await ownedKey(who.account.id, q.key))) return notFound(req, reply)
      keyId = q.key
    }
    const now = clock.now()
    const allKeys = await keys.list({ accountId: who.account.id, includeRevoked: true })
    return sendPage(
      reply,
      200,
      usagePage(await ctx(req, '/usage'), {
        report: await usageReport(db, { accountId: who.account.id, range, dimension, keyId, nowMs: now }),
        range,
        dimension,
        keyId,
        keys: allKeys.map((k) => ({ id: k.id, name: k.revokedAt === null ? k.name : `${k.name} (revoked)` })),
        usedToday: await creditsUsedToday(db, who.account.id, now),
        plan: planOf(who.account.plan),
        daily: await dailyCredits(db, who.account.id, range === '30d' ? 30 : 7, now),
      }),
    )
  })
}

// ---- small helpers ---------------------------------------------------------------------------------------------

const DONE_MESSAGES: Record<string, string> = {
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

const validation = (message: string) => errors.validation(message)

function allowlistType(v: string): AllowlistType {
  if ((ALLOWLIST_TYPES as readonly string[]).includes(v)) return v as AllowlistType
  throw validation('Unknown allowlist type')
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/\.$/, '')

function field(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return ''
  const v = (body as FormBody)[name]
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : ''
}

function safeNext(next: string | undefined): string | undefined {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : undefined
}

function cookies(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {}
  const header = req.headers.cookie
  if (!header) return out
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    const name = part.slice(0, eq).trim()
    if (!(name in out)) {
      try {
        out[name] = decodeURIComponent(part.slice(eq + 1).trim())
      } catch {
        // a malformed cookie is ignored
      }
    }
  }
  return out
}

function setCookie(req: FastifyRequest, reply: FastifyReply, name: string, value: string, maxAgeSeconds: number): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`]
  if (req.protocol === 'https') parts.push('Secure')
  const prev = reply.getHeader('set-cookie')
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev : [String(prev)]
  reply.header('set-cookie', [...list.filter((c) => !c.startsWith(`${name}=`)), parts.join('; ')])
}

/** When the browser sends Origin on a POST, it must be this site (defence in depth next to the CSRF token). */
function sameOrigin(req: FastifyRequest): boolean {
  const origin = req.headers.origin
  if (origin === undefined) return true
  try {
    return new URL(origin).host === req.host
  } catch {
    return false
  }
}

function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page)
}
