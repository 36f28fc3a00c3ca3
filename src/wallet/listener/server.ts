/**
 * The wallet listener: the multichain API over WebSocket (JSON-RPC 2.0) at `/`, and the wallet console at
 * `/console` (./console-routes.ts). The only part of the wallet that sees HTTP types.
 *
 * Origin of a connection (one session per origin, docs/wallet.md): the browser's `Origin` header; a non-browser
 * dapp that sends none declares one with `?origin=<origin>`. A connection with neither, with an opaque `null`
 * origin, or with both disagreeing is refused (403) before the upgrade. `?pairing=<secret>` names the session the
 * connection may use (docs/wallet.md "Pairing"); a malformed one is refused (400).
 */
import fastifyWebsocket from '@fastify/websocket'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { WebSocket } from 'ws'
import { TokenBucket } from '../../shared/token-bucket.ts'
import { PAIRING_SECRET } from '../connections.ts'
import { toWireError, walletErrors } from '../errors.ts'
import { registerConsoleRoutes } from './console-routes.ts'
import type { WalletServerDeps } from './deps.ts'
import { NESTING_REASON, nestsDeeperThan } from './nesting.ts'

const MAX_ORIGIN_LENGTH = 255

/** The origin a connection speaks for, or an error text for the 403. */
export function resolveOrigin(
  headerOrigin: string | undefined,
  declared: string | undefined,
): { origin: string } | { error: string } {
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
    if (declared !== undefined && norm(declared) !== o)
      return { error: 'the declared ?origin= differs from the Origin header' }
    return { origin: o }
  }
  if (declared !== undefined) {
    const o = norm(declared)
    return o ? { origin: o } : { error: 'the declared ?origin= is malformed' }
  }
  return { error: 'no origin: browsers send an Origin header; other dapps add ?origin=<their origin> to the URL' }
}

/** The listener plus `drain`, which waits (bounded) until every request in flight has been answered. */
export interface WalletServer {
  app: FastifyInstance
  drain(timeoutMs: number): Promise<void>
}

export async function buildWalletServer(deps: WalletServerDeps): Promise<WalletServer> {
  const { config, engine, logger } = deps
  const answering = new Set<Promise<unknown>>()
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
      const pairing = q.pairing
      if (pairing !== undefined && !(typeof pairing === 'string' && PAIRING_SECRET.test(pairing)))
        return reply
          .code(400)
          .send({ error: 'the pairing secret (?pairing=) must be 32-128 characters of A-Z a-z 0-9 _ -' })
      const r2 = req as FastifyRequest & { walletOrigin?: string; walletPairing?: string }
      r2.walletOrigin = r.origin
      r2.walletPairing = pairing as string | undefined
    },
    handler: async (_req, reply) =>
      reply
        .type('text/plain')
        .send(
          'chaingate wallet: connect with a WebSocket (JSON-RPC 2.0, CAIP-25 multichain API). See docs/wallet.md.\n',
        ),
    wsHandler: (socket: WebSocket, req: FastifyRequest) => {
      const r = req as FastifyRequest & { walletOrigin?: string; walletPairing?: string }
      handleConnection(socket, r.walletOrigin!, r.walletPairing)
    },
  })

  function handleConnection(socket: WebSocket, origin: string, pairing: string | undefined): void {
    const send = (m: object) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(m))
    }
    const conn = engine.openConnection(origin, send, pairing)
    logger.debug({ origin, connection: conn.id, paired: conn.resumable }, 'wallet: connection opened')
    // Token bucket: maxMessagesPerSecond, burst twice that. Exceeding it closes only this connection.
    const rate = config.maxMessagesPerSecond
    const messages = new TokenBucket(rate, rate * 2, Date.now())
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
      if (!messages.take(1, Date.now())) return closeFor(1008, 'message rate limit exceeded')
      if (inFlight >= config.maxInFlightPerConnection) return closeFor(1008, 'too many requests in flight')
      const text = isBinary ? Buffer.from(raw as Buffer).toString('utf8') : String(raw)
      let msg: unknown
      try {
        msg = JSON.parse(text)
      } catch {
        return send({ jsonrpc: '2.0', id: null, error: toWireError(walletErrors.parse()) })
      }
      if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
        return send({
          jsonrpc: '2.0',
          id: null,
          error: toWireError(
            walletErrors.invalidRequest(Array.isArray(msg) ? 'batches are not supported' : 'not an object'),
          ),
        })
      const m = msg as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }
      const idOk = m.id === null || typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id))
      if (m.id !== undefined && !idOk)
        return send({ jsonrpc: '2.0', id: null, error: toWireError(walletErrors.invalidRequest('bad id')) })
      if (m.jsonrpc !== '2.0' || typeof m.method !== 'string')
        return send({
          jsonrpc: '2.0',
          id: m.id ?? null,
          error: toWireError(walletErrors.invalidRequest('needs jsonrpc "2.0" and a method')),
        })
      if (m.id === undefined) return // a notification from the dapp: nothing to answer
      if (nestsDeeperThan(text))
        return send({ jsonrpc: '2.0', id: m.id, error: toWireError(walletErrors.nestedTooDeep(NESTING_REASON)) })
      inFlight += 1
      const started = performance.now()
      const answered = engine.handle(conn, m.method, m.params).then(
        (result) => {
          inFlight -= 1
          send({ jsonrpc: '2.0', id: m.id, result })
          logger.debug({ origin, method: m.method, ms: Math.round(performance.now() - started) }, 'wallet: request')
        },
        (err: unknown) => {
          inFlight -= 1
          const error = toWireError(err)
          if (error.code === -32603 && !(err as { code?: unknown })?.code)
            logger.error({ err, origin, method: m.method }, 'wallet: internal error')
          send({ jsonrpc: '2.0', id: m.id, error })
          logger.debug(
            { origin, method: m.method, code: error.code, ms: Math.round(performance.now() - started) },
            'wallet: request failed',
          )
        },
      )
      answering.add(answered)
      void answered.finally(() => answering.delete(answered))
    })
    socket.on('error', () => {})
    // The peer's close frame ends the connection for the wallet at once: `ws` emits 'close' only when TCP closes, up
    // to 30 s later for a peer that sends a close frame and keeps the socket open, and its waiting requests must not
    // stay in the console meanwhile. `ws` answers a close frame by calling close(): hooked on this socket only.
    const closeSocket = socket.close.bind(socket)
    socket.close = (code?: number, reason?: string | Buffer) => {
      void engine.closeConnection(conn)
      closeSocket(code, reason)
    }
    socket.on('close', () => {
      void engine.closeConnection(conn)
      logger.debug({ origin, connection: conn.id }, 'wallet: connection closed')
    })
  }

  registerConsoleRoutes(app, deps)

  return {
    app,
    async drain(timeoutMs) {
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref())
      await Promise.race([Promise.allSettled([...answering]).then(() => undefined), timeout])
    },
  }
}
