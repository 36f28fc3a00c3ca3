/**
 * The wallet listener: the multichain API over WebSocket (JSON-RPC 2.0) at `/`, and the wallet console at
 * `/console` (loopback Host and the console token only). The only place in the wallet that sees HTTP types.
 *
 * Origin of a connection (one session per origin, spec §9): the browser's `Origin` header; a non-browser dapp
 * that sends none declares one with `?origin=<origin>` (docs/wallet.md). A connection with neither, with an
 * opaque `null` origin, or with both disagreeing is refused (403) before the upgrade.
 */
import { timingSafeEqual } from 'node:crypto'
import fastifyWebsocket from '@fastify/websocket'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import type { WebSocket } from 'ws'
import type { WalletConfig } from '../../config/wallet-schema.ts'
import { renderConsolePage } from '../../console/page.ts'
import type { Approvals } from '../../wallet/approvals.ts'
import type { WalletEngine, WalletConnection } from '../../wallet/engine.ts'
import { toWireError, walletErrors } from '../../wallet/errors.ts'
import type { WalletStore } from '../../wallet/store.ts'

export interface WalletServerDeps {
  config: WalletConfig
  engine: WalletEngine
  approvals: Approvals
  store: WalletStore
  logger: Logger
  consoleToken: string
}

const MAX_ORIGIN_LENGTH = 255

/** The origin a connection speaks for, or an error text for the 403. */
export function resolveOrigin(headerOrigin: string | undefined, declared: string | undefined): { origin: string } | { error: string } {
  const norm = (o: string): string | undefined => {
    const t = o.trim()
    if (t === '' || t === 'null' || t.length > MAX_ORIGIN_LENGTH || /[\s\u0000-\u001f]/.test(t)) return undefined
    try {
      const u = new URL(t)
      if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin
    } catch {}
    return t
  }
  if (headerOrigin !== undefined) {
    const o = norm(headerOrigin)
    if (!o) return { error: `origin ${JSON.stringify(headerOrigin)} is not accepted (opaque or malformed)` }
    if (declared !== undefined && norm(declared) !== o) return { error: 'the declared ?origin= differs from the Origin header' }
    return { origin: o }
  }
  if (declared !== undefined) {
    const o = norm(declared)
    return o ? { origin: o } : { error: 'the declared ?origin= is malformed' }
  }
  return { error: 'no origin: browsers send an Origin header; other dapps add ?origin=<their origin> to the URL' }
}

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])

function isLoopbackHostHeader(host: string | undefined): boolean {
  if (!host) return false
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!
  return LOOPBACK_HOSTNAMES.has(name.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(name)
}

function tokenMatches(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export async function buildWalletServer(deps: WalletServerDeps): Promise<FastifyInstance> {
  const { config, engine, logger } = deps
  const app = Fastify({ logger: false, bodyLimit: 256 * 1024 })
  await app.register(fastifyWebsocket, { options: { maxPayload: config.maxMessageBytes } })

  app.route({
    method: 'GET',
    url: '/',
    preValidation: async (req: FastifyRequest, reply: FastifyReply) => {
      if (req.headers.upgrade?.toLowerCase() !== 'websocket') return
      const q = req.query as Record<string, unknown>
      const r = resolveOrigin(req.headers.origin, typeof q.origin === 'string' ? q.origin : undefined)
      if ('error' in r) return reply.code(403).send({ error: r.error })
      ;(req as FastifyRequest & { walletOrigin?: string }).walletOrigin = r.origin
    },
    handler: async (_req, reply) =>
      reply.type('text/plain').send('chaingate wallet: connect with a WebSocket (JSON-RPC 2.0, CAIP-25 multichain API). See docs/wallet.md.\n'),
    wsHandler: (socket: WebSocket, req: FastifyRequest) => {
      const origin = (req as FastifyRequest & { walletOrigin?: string }).walletOrigin!
      handleConnection(socket, origin)
    },
  })

  function handleConnection(socket: WebSocket, origin: string): void {
    const send = (m: object) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(m))
    }
    const conn = engine.openConnection(origin, send)
    logger.debug({ origin, connection: conn.id }, 'wallet: connection opened')
    // Token bucket: maxMessagesPerSecond, burst twice that. Exceeding it closes only this connection.
    const rate = config.maxMessagesPerSecond
    let tokens = rate * 2
    let last = Date.now()
    let inFlight = 0
    let closing = false
    const closeFor = (code: number, why: string) => {
      if (closing) return
      closing = true
      logger.warn({ origin, connection: conn.id, why }, 'wallet: connection closed for abuse')
      socket.close(code, why)
      // A peer that ignores the close handshake is cut off.
      setTimeout(() => socket.terminate(), 1000).unref()
    }

    socket.on('message', (raw, isBinary) => {
      if (closing) return
      const now = Date.now()
      tokens = Math.min(rate * 2, tokens + ((now - last) / 1000) * rate)
      last = now
      if (tokens < 1) return closeFor(1008, 'message rate limit exceeded')
      tokens -= 1
      if (inFlight >= config.maxInFlightPerConnection) return closeFor(1008, 'too many requests in flight')
      const text = isBinary ? Buffer.from(raw as Buffer).toString('utf8') : String(raw)
      let msg: unknown
      try {
        msg = JSON.parse(text)
      } catch {
        return send({ jsonrpc: '2.0', id: null, error: walletErrors.parse().toJSON() })
      }
      if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
        return send({ jsonrpc: '2.0', id: null, error: walletErrors.invalidRequest(Array.isArray(msg) ? 'batches are not supported' : 'not an object').toJSON() })
      const m = msg as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }
      const idOk = m.id === null || typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id))
      if (m.id !== undefined && !idOk) return send({ jsonrpc: '2.0', id: null, error: walletErrors.invalidRequest('bad id').toJSON() })
      if (m.jsonrpc !== '2.0' || typeof m.method !== 'string')
        return send({ jsonrpc: '2.0', id: m.id ?? null, error: walletErrors.invalidRequest('needs jsonrpc "2.0" and a method').toJSON() })
      if (m.id === undefined) return // a notification from the dapp: nothing to answer
      inFlight += 1
      const started = performance.now()
      void engine.handle(conn, m.method, m.params).then(
        (result) => {
          inFlight -= 1
          send({ jsonrpc: '2.0', id: m.id, result })
          logger.debug({ origin, method: m.method, ms: Math.round(performance.now() - started) }, 'wallet: request')
        },
        (err: unknown) => {
          inFlight -= 1
          const error = toWireError(err)
          if (error.code === -32603 && !(err as { code?: unknown })?.code) logger.error({ err, origin, method: m.method }, 'wallet: internal error')
          send({ jsonrpc: '2.0', id: m.id, error })
          logger.debug({ origin, method: m.method, code: error.code, ms: Math.round(performance.now() - started) }, 'wallet: request failed')
        },
      )
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      void engine.closeConnection(conn)
      logger.debug({ origin, connection: conn.id }, 'wallet: connection closed')
    })
  }

  // ---------------------------------------------------------------- console
  const guard = (req: FastifyRequest, reply: FastifyReply, token: unknown): boolean => {
    // Loopback Host only (defeats DNS rebinding), and the token printed at start.
    if (!isLoopbackHostHeader(req.headers.host)) {
      void reply.code(403).send({ error: 'the wallet console answers only on a loopback host (127.0.0.1, localhost, [::1])' })
      return false
    }
    if (!tokenMatches(token, deps.consoleToken)) {
      void reply.code(401).send({ error: 'missing or wrong console token' })
      return false
    }
    return true
  }
  const bearer = (req: FastifyRequest) => req.headers.authorization?.replace(/^Bearer\s+/i, '')

  app.get('/console', async (req, reply) => {
    if (!guard(req, reply, (req.query as Record<string, unknown>).token)) return reply
    return reply
      .header('content-security-policy', "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(renderConsolePage())
  })

  app.get('/console/api/state', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    return {
      accounts: engine.accounts(),
      pending: await deps.store.listApprovals('pending'),
      sessions: engine.sessionsSnapshot(),
      autoApprove: config.autoApprove,
    }
  })

  app.post('/console/api/approvals/:id/:action', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const { id, action } = req.params as { id: string; action: string }
    if (action !== 'approve' && action !== 'reject') return reply.code(404).send({ error: 'unknown action' })
    const ok = await deps.approvals.decide(id, action === 'approve', action === 'approve' ? (req.body ?? {}) : undefined, 'console')
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
        ? Object.fromEntries(Object.entries(b.methods as Record<string, unknown>).map(([k, v]) => [k, strings(v) ?? []]))
        : undefined
    const ok = await engine.editSession(b.origin, { accounts: strings(b.accounts), scopes: strings(b.scopes), methods })
    return ok ? { ok: true } : reply.code(404).send({ error: 'no session for this origin' })
  })

  app.post('/console/api/sessions/revoke', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    const b = (req.body ?? {}) as { origin?: unknown; scopes?: unknown }
    if (typeof b.origin !== 'string') return reply.code(400).send({ error: 'origin is required' })
    const scopes = Array.isArray(b.scopes) ? b.scopes.filter((x): x is string => typeof x === 'string') : undefined
    const ok = await engine.revokeOrigin(b.origin, scopes)
    return ok ? { ok: true } : reply.code(404).send({ error: 'no session for this origin' })
  })

  return app
}

export type { WalletConnection }
