/**
 * Test support for the dashboard tests (test/e2e/dashboard*.test.ts): a fastify app shaped like the gateway
 * listener (a catch-all body parser at the root, as src/gateway/http/server.ts has) with the dashboard registered,
 * a temp SQLite file, a controllable clock and a logger whose lines are kept for inspection.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import pino from 'pino'
import { DashboardConfigSchema, type DashboardConfig } from '../../../src/config/dashboard-schema.ts'
import type { PlanConfig } from '../../../src/config/schema.ts'
import { openDatabase, type OpenedDatabase } from '../../../src/db/database.ts'
import { request } from 'undici'
import { registerDashboard, type DashboardDeps } from '../../../src/dashboard/plugin.ts'
import { MailConfigSchema, type MailConfig } from '../../../src/config/mail-schema.ts'
import { createMailer } from '../../../src/mail/mailer.ts'

export interface DashboardTestApp {
  app: FastifyInstance
  /** http://127.0.0.1:PORT with `listen`; '' otherwise. */
  url: string
  opened: OpenedDatabase
  dbFile: string
  /** Where mails land without `mail.smtp`. */
  mailDir: string
  logLines: string[]
  clock: { now(): number; set(ms: number): void }
  deps: DashboardDeps
  close(): Promise<void>
}

export const TEST_PLANS: Record<string, PlanConfig> = {
  free: { creditsPerDay: 3_000_000, creditsPerSecond: 500, maxKeys: 1 },
  developer: { creditsPerDay: 15_000_000, creditsPerSecond: 4_000, maxKeys: 5 },
}

export async function buildDashboardTestApp(
  opts: {
    dashboard?: Partial<DashboardConfig>
    defaultPlan?: string
    fastify?: FastifyServerOptions
    /** The listener address and allowed hosts the dashboard is told about (docs/dashboard.md). */
    gateway?: { host?: string; allowedHosts?: string[] | null }
    /** Listen on 127.0.0.1, port 0, for real HTTP clients (`url`). */
    listen?: boolean
    /** The `mail` config (`{ smtp: inbox.config }`: a test inbox, ../../support/smtp-inbox.ts); default: `mailDir`. */
    mail?: { from?: string; smtp?: Partial<NonNullable<MailConfig['smtp']>> & { host: string } }
    /** A database to use instead of a temp SQLite file (a replica of another app on PostgreSQL); not closed here. */
    database?: OpenedDatabase
  } = {},
): Promise<DashboardTestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-dashboard-'))
  const dbFile = join(dir, 'chaingate.sqlite')
  const opened = opts.database ?? (await openDatabase(dbFile))
  const logLines: string[] = []
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk))
      cb()
    },
  })
  const logger = pino({ level: 'debug' }, sink)
  let now = Date.UTC(2026, 0, 15, 12, 30, 0)
  const clock = { now: () => now, set: (ms: number) => void (now = ms) }
  const app = Fastify({ logger: false, ...opts.fastify })
  // Like the gateway listener: JSON-RPC bodies are read whatever their content type.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))
  const mailer = createMailer(MailConfigSchema.parse(opts.mail ?? {}), { dataDir: dir, logger })
  const deps: DashboardDeps = {
    db: opened.db,
    config: {
      networks: [{ name: 'devnet-a', hosts: ['devnet-a.localhost'] }, { name: 'devnet-b' }],
      plans: TEST_PLANS,
      gateway: { defaultPlan: opts.defaultPlan ?? 'developer', ...opts.gateway },
      // Sign-ups need no mailed confirmation here unless a test asks for it (tests of other flows sign up freely).
      dashboard: DashboardConfigSchema.parse({ confirmEmail: false, ...opts.dashboard }),
    },
    clock,
    logger,
    mailer,
  }
  await registerDashboard(app, deps)
  await app.ready()
  const url = opts.listen ? await app.listen({ host: '127.0.0.1', port: 0 }) : ''
  return {
    app,
    url,
    opened,
    dbFile,
    mailDir: join(dir, 'mail'),
    logLines,
    clock,
    deps,
    async close() {
      mailer.close()
      await app.close()
      if (!opts.database) await opened.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function cookieJar() {
  const jar = new Map<string, string>()
  const store = (setCookie: string | string[] | undefined) => {
    for (const c of setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair] = c.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq)
      const value = pair!.slice(eq + 1)
      if (value === '' || /max-age=0/i.test(c)) jar.delete(name)
      else jar.set(name, value)
    }
  }
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  return { jar, store, cookieHeader }
}

export interface HttpReply {
  statusCode: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * A cookie-keeping client over real HTTP (undici), for form posts; `headers` go with every request (e.g. a Host
 * or X-Forwarded-For).
 */
export function httpClient(base: string, defaults: { headers?: Record<string, string> } = {}) {
  const { jar, store, cookieHeader } = cookieJar()
  const send = async (
    method: 'GET' | 'POST',
    url: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<HttpReply> => {
    const res = await request(`${base}${url}`, {
      method,
      headers: { cookie: cookieHeader(), ...defaults.headers, ...headers },
      ...(body === undefined ? {} : { body }),
    })
    const text = await res.body.text()
    store(res.headers['set-cookie'])
    return { statusCode: res.statusCode, headers: res.headers, body: text }
  }
  const client = {
    jar,
    get: (url: string, headers: Record<string, string> = {}) => send('GET', url, headers),
    post: (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
      send(
        'POST',
        url,
        { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        new URLSearchParams(form).toString(),
      ),
    async submit(page: string, url: string, form: Record<string, string>) {
      return client.post(url, { _csrf: csrfOf((await client.get(page)).body), ...form })
    },
    async signup(email: string, password: string) {
      const res = await client.submit('/signup', '/signup', { email, password })
      return res.statusCode === 303 ? client.login(email, password) : res
    },
    login: (email: string, password: string) => client.submit('/login', '/login', { email, password }),
  }
  return client
}

/** A cookie-keeping client over fastify.inject, for form posts. */
export function injectClient(app: FastifyInstance, defaults: { ip?: string } = {}) {
  const { jar, store, cookieHeader } = cookieJar()
  const client = {
    jar,
    async get(url: string, headers: Record<string, string> = {}) {
      const res = await app.inject({
        method: 'GET',
        url,
        headers: { cookie: cookieHeader(), ...headers },
        remoteAddress: defaults.ip,
      })
      store(res.headers['set-cookie'] as string | string[] | undefined)
      return res
    },
    async post(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { cookie: cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: new URLSearchParams(form).toString(),
        remoteAddress: defaults.ip,
      })
      store(res.headers['set-cookie'] as string | string[] | undefined)
      return res
    },
    /** GETs `page`, then posts `form` with the page's CSRF token. */
    async submit(page: string, url: string, form: Record<string, string>) {
      const token = csrfOf((await client.get(page)).body)
      return client.post(url, { _csrf: token, ...form })
    },
    /** Only the sign-up form: its answer is a 303 to the log-in page whether or not the email was new. */
    async signupOnly(email: string, password: string) {
      return client.submit('/signup', '/signup', { email, password })
    },
    /** Signs up, then logs in (sign-up alone never logs in); the answer of the step that failed, else the log-in's. */
    async signup(email: string, password: string) {
      const res = await client.signupOnly(email, password)
      if (res.statusCode !== 303) return res
      return client.login(email, password)
    },
    async login(email: string, password: string) {
      return client.submit('/login', '/login', { email, password })
    },
  }
  return client
}

export function csrfOf(page: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(page)
  if (!m) throw new Error('no CSRF token on the page')
  return m[1]!
}
