/**
 * The gateway listener: fastify for HTTP (the only place that sees HTTP types) and `ws` for WebSocket upgrades.
 * Routes: POST /v3/<key> (Host picks the network), POST /networks/<name>/v3/<key> (path form for clients that
 * cannot set Host), the same under /ws/ for WebSocket, /healthz, /metrics, and whatever plugins (dashboard)
 * register.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { WebSocketServer, type WebSocket } from 'ws'
import type { KeySnapshot } from '../api-keys/snapshot.ts'
import type { Gateway } from '../gateway/pipeline.ts'
import type { AccessCheck } from '../gateway/access.ts'
import { WS_CLOSE, createWsSession, type WsSession, type WsSessionDeps } from '../gateway/ws-session.ts'
import type { NetworkRegistry } from '../networks/registry.ts'
import { createRequestLog, type Logger } from '../observability/logger.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { SubscriptionHub } from '../upstreams/subscriptions.ts'
import type { UpstreamPool } from '../upstreams/pool.ts'
import { errors } from '../errors/index.ts'
import { serializeError, toErrorObject } from '../jsonrpc/envelope.ts'
import { limitBody } from '../gateway/responses.ts'
import { CORS_HEADERS, createRpcRoute, rpcTarget } from './rpc-route.ts'

export interface GatewayServerDeps {
  gateway: Gateway
  networks: NetworkRegistry
  keys: KeySnapshot
  pools: Map<string, UpstreamPool>
  hubs: Map<string, SubscriptionHub>
  metrics: Metrics
  logger: Logger
  logRequests: boolean
  maxBodyBytes: number
  /** Answers at least this large are gzipped for clients that accept it; null: never. */
  gzipMinBytes: number | null
  maxWsMessageBytes: number
  sessionDeps: Omit<WsSessionDeps, 'gateway' | 'hub' | 'send' | 'close' | 'onDailyExhausted'>
  checkAccess?: AccessCheck
  /** fastify's trustProxy (config `gateway.trustProxy`): client IP/protocol/host from X-Forwarded-* for fastify routes. */
  trustProxy?: boolean | string | string[]
  /** Extra routes (dashboard), registered on the same listener. */
  plugins?: ((app: FastifyInstance) => Promise<void> | void)[]
}

export interface GatewayServer {
  readonly app: FastifyInstance
  listen(host: string, port: number): Promise<string>
  /** Closes every WebSocket of an account (daily balance exhausted). */
  closeAccountSockets(accountId: string, reason: string): void
  close(): Promise<void>
}

/** CORS, and the credits header every answer on an RPC path carries (nothing is charged for these). */
const CORS = { ...Object.fromEntries(CORS_HEADERS), 'x-credits-charged': '0' }


export function createGatewayServer(deps: GatewayServerDeps): GatewayServer {
  const requestLog = createRequestLog(deps.logger)
  const rpcRoute = createRpcRoute({ gateway: deps.gateway, networks: deps.networks, maxBodyBytes: deps.maxBodyBytes, gzipMinBytes: deps.gzipMinBytes, logRequests: deps.logRequests, requestLog, logger: deps.logger })
  const app = Fastify({
    logger: false,
    bodyLimit: deps.maxBodyBytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    trustProxy: deps.trustProxy ?? false,
    serverFactory: (fastifyHandler) =>
      createServer((req, res) => {
        if (!rpcRoute(req, res)) fastifyHandler(req, res)
      }),
  })
  const sessions = new Map<WebSocket, WsSession>()


  app.setErrorHandler((err: { code?: string; statusCode?: number }, _req, reply) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const e = errors.bodyTooLarge(deps.maxBodyBytes)
      return reply.code(413).type('application/json').headers(CORS).send(serializeError(null, toErrorObject(e)))
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500
    if (status === 500) deps.logger.error({ err }, 'unhandled error in HTTP handler')
    return reply
      .code(status)
      .type('application/json')
      .send(serializeError(null, { code: status === 500 ? -32603 : -32600, message: status === 500 ? 'Internal error' : 'Bad request' }))
  })

  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).headers(CORS).header('allow', 'POST, OPTIONS').type('text/plain; charset=utf-8').send('method not allowed: send JSON-RPC with POST\n')
  const preflight = async (_req: FastifyRequest, reply: FastifyReply) => reply.code(204).headers(CORS).send()

  // POST on these paths never reaches fastify: the bare node:http route (rpc-route.ts) takes it first.
  for (const path of ['/v3', '/v3/*']) {
    app.options(path, preflight)
    app.route({ method: ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD'], url: path, handler: notAllowed })
  }
  for (const path of ['/networks/:network/v3', '/networks/:network/v3/*']) {
    app.options(path, preflight)
    app.route({ method: ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD'], url: path, handler: notAllowed })
  }

  app.get('/healthz', async (_req, reply) => {
    const checks = await Promise.all(
      deps.networks.all.map(async (n) => {
        try {
          await deps.pools.get(n.name)!.send('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}', { timeoutMs: 2000 })
          return [n.name, 'up'] as const
        } catch {
          return [n.name, 'down'] as const
        }
      }),
    )
    const networks = Object.fromEntries(checks)
    const healthy = checks.every(([, s]) => s === 'up')
    return reply.code(200).send({ status: healthy ? 'ok' : 'degraded', networks })
  })
  app.get('/metrics', async (_req, reply) => reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()))

  // WebSocket: authorized before the upgrade, so a bad key gets the same HTTP status and body as over HTTP.
  const wss = new WebSocketServer({ noServer: true, maxPayload: deps.maxWsMessageBytes })

  const closeAccountSockets = (accountId: string, reason: string) => {
    for (const [socket, s] of sessions) if (s.accountId === accountId) socket.close(WS_CLOSE.policy, reason)
  }

  const rejectUpgrade = (socket: Duplex, res: { status: number; contentType: string; body: string | Buffer | undefined; headers?: Record<string, string> | undefined; credits?: number }) => {
    const body = res.body?.toString() ?? ''
    const extra = Object.entries(res.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('')
    socket.end(
      `HTTP/1.1 ${res.status} ${res.status === 401 ? 'Unauthorized' : res.status === 404 ? 'Not Found' : res.status === 403 ? 'Forbidden' : res.status === 402 ? 'Payment Required' : 'Error'}\r\n` +
        `content-type: ${res.contentType}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-credits-charged: ${res.credits ?? 0}\r\nconnection: close\r\n${extra}\r\n${body}`,
    )
  }

  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    // The URL parser resolves dot segments first, as the upgrade has always done.
    const target = rpcTarget(new URL(req.url ?? '/', 'http://x').pathname, req.headers.host, 'ws', deps.networks)
    if (!target) {
      rejectUpgrade(socket, { status: 404, contentType: 'text/plain; charset=utf-8', body: 'no WebSocket endpoint here: use /ws/v3/<key>\n' })
      return
    }
    const { network, label } = target
    const auth = await deps.gateway.authorize(
      { network, networkLabel: label, key: target.key, authorization: req.headers.authorization, origin: req.headers.origin, userAgent: req.headers['user-agent'] },
      [],
    )
    if ('refusal' in auth) {
      rejectUpgrade(socket, auth.refusal)
      return
    }
    const ctx = { ...auth.ctx, transport: 'ws' as const }
    // Sockets are closed when the daily balance runs out (I§1.4); a new one is refused until 00:00 UTC.
    const { limits, clock } = deps.sessionDeps
    if (limits.usedToday(ctx.entry.accountId, clock.now()) >= ctx.entry.plan.creditsPerDay) {
      rejectUpgrade(socket, { status: 402, contentType: 'application/json', body: limitBody('DAILY_CREDITS_EXHAUSTED', null) })
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      deps.metrics.wsConnections(1)
      const session = createWsSession(ctx, {
        ...deps.sessionDeps,
        gateway: deps.gateway,
        hub: deps.hubs.get(ctx.network.name)!,
        ...(deps.checkAccess ? { checkAccess: deps.checkAccess } : {}),
        upgradeHeaders: { authorization: req.headers.authorization, origin: req.headers.origin, userAgent: req.headers['user-agent'] },
        send: (text) => {
          if (ws.readyState === ws.OPEN) ws.send(text)
        },
        close: (code, reason) => ws.close(code, reason),
        onDailyExhausted: (accountId) => closeAccountSockets(accountId, 'daily credit limit reached'),
      })
      sessions.set(ws, session)
      ws.on('message', (data, isBinary) => {
        void session.handleMessage(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString()).catch((err) => {
          deps.logger.error({ err, keyId: session.keyId }, 'websocket message failed')
          ws.send(serializeError(null, { code: -32603, message: 'Internal error' }))
        })
      })
      ws.on('close', () => {
        sessions.delete(ws)
        void session.dispose()
      })
      ws.on('error', () => ws.terminate())
    })
  }

  // A key revoked or a network disabled closes the sockets that relied on it.
  deps.keys.onReload(() => {
    for (const [socket, s] of sessions)
      if (!s.stillAuthorized()) socket.close(WS_CLOSE.policy, 'this API key is revoked or no longer has access to this network')
  })

  return {
    app,
    async listen(host, port) {
      for (const p of deps.plugins ?? []) await p(app)
      app.server.on('upgrade', (req, socket, head) => {
        onUpgrade(req, socket, head).catch((err) => {
          deps.logger.error({ err }, 'websocket upgrade failed')
          socket.destroy()
        })
      })
      const address = await app.listen({ host, port })
      return address
    },
    closeAccountSockets,
    async close() {
      for (const socket of sessions.keys()) socket.close(WS_CLOSE.goingAway, 'server shutting down')
      await Promise.all([...sessions.values()].map((s) => s.dispose()))
      wss.close()
      await app.close()
      requestLog.flush()
    },
  }
}
