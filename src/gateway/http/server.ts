/**
 * The gateway listener: the hot RPC route on bare node:http (rpc-route.ts), fastify for every other route, and
 * `ws` for WebSocket upgrades on the RPC paths (src/shared/rpc-paths.ts). The only place that sees HTTP types.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { WebSocketServer, type WebSocket } from 'ws'
import type { KeySnapshot } from '../../keys/snapshot.ts'
import { type ChaingateError, errors } from '../../errors/index.ts'
import { ERROR_REGISTRY } from '../../errors/registry.ts'
import type { Gateway } from '../pipeline/execute.ts'
import type { SubscriptionDeps, CallContext } from '../pipeline/types.ts'
import { serializeError, toErrorObject } from '../../jsonrpc/envelope.ts'
import type { NetworkRegistry } from '../../networks/registry.ts'
import { matchRpcPath } from '../../shared/rpc-paths.ts'
import { createRequestLines, type Logger } from '../../observability/logger.ts'
import type { Metrics } from '../../observability/metrics.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import type { SubscriptionHub } from '../../upstreams/subscriptions/hub.ts'
import { BODIES, JSON_TYPE, TEXT, isLimitCode, limitAnswer, refusal } from './infura-bodies.ts'
import { type OperationsDeps, registerOperations } from './operations.ts'
import { createRpcRoute, rpcTarget } from './rpc-route.ts'
import { CORS, preflight } from './cors-preflight.ts'
import { createSlots } from '../../shared/slots.ts'
import { clientAddressResolver } from './client-address.ts'
import { wsWriter } from './ws-send.ts'
import { closeNetworkSessions, createWsSession, REVOKED_REASON, type WsSession } from './ws-client.ts'
import { WS_CLOSE } from './ws-close-codes.ts'

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
  /** gateway.maxInFlight (src/gateway/http/rpc-route.ts). */
  maxInFlight?: number
  maxWsMessageBytes: number
  /** Unread bytes one WebSocket client may leave queued before it is closed (1008). */
  maxWsBufferedBytes: number
  subscriptions: SubscriptionDeps
  /**
   * WebSocket connections open at once in this process, per key (its plan's maxWsConnectionsPerKey wins) and per
   * client address (gateway.maxWsConnectionsPerKey, maxWsConnectionsPerAddress); none: no such caps.
   */
  wsConnections?: { perKey: number; perAddress: number }
  /** Slow clients: node:http's own timeouts, on the real server (the hot route bypasses fastify's). */
  timeouts: { requestMs: number; headersMs: number; keepAliveMs: number }
  /** The operator endpoints' settings (./operations.ts); `separate`: they have their own listener instead. */
  operations: Omit<OperationsDeps, 'networks' | 'pools' | 'metrics'> & { separate: boolean }
  /** fastify's trustProxy (`gateway.trustProxy`): client IP/protocol/host from X-Forwarded-* for fastify routes. */
  trustProxy?: boolean | string | string[]
  /** Extra routes (dashboard), registered on the same listener. */
  plugins?: ((app: FastifyInstance) => Promise<void> | void)[]
}

export interface GatewayServer {
  readonly app: FastifyInstance
  listen(host: string, port: number): Promise<string>
  /** Closes every WebSocket of an account (daily balance exhausted). */
  closeAccountSockets(accountId: string, reason: string): void
  /** Closes every WebSocket on a network `chaingate reload` removed (close code 4004, docs/errors.md). */
  closeNetworkSockets(network: string): void
  /**
   * Stops accepting, lets in-flight calls finish (answers then say `connection: close`), and after `timeoutMs`
   * (if given) cuts the connections still open.
   */
  close(timeoutMs?: number): Promise<void>
  /** Draining: from now on each answer closes its connection, so keep-alive clients move to another replica. */
  stopKeepAlive(): void
}

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
}

export function createGatewayServer(deps: GatewayServerDeps): GatewayServer {
  const requestLines = createRequestLines(deps.logger)
  const rpcRoute = createRpcRoute({
    gateway: deps.gateway,
    networks: deps.networks,
    maxBodyBytes: deps.maxBodyBytes,
    gzipMinBytes: deps.gzipMinBytes,
    maxInFlight: deps.maxInFlight,
    logRequests: deps.logRequests,
    requestLines,
    logger: deps.logger,
    metrics: deps.metrics,
  })
  const { timeouts } = deps
  const app = Fastify({
    logger: false,
    bodyLimit: deps.maxBodyBytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    trustProxy: deps.trustProxy ?? false,
    serverFactory: (fastifyHandler) =>
      createServer(
        {
          // fastify's own timeouts do not apply to a server it did not create, and the hot route bypasses fastify:
          // without these a slow body or a slowloris holds a connection for minutes.
          requestTimeout: timeouts.requestMs,
          headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
          keepAliveTimeout: timeouts.keepAliveMs,
          // How often node:http looks for expired requests (default 30 s: far more than the timeouts above).
          connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(timeouts.headersMs / 2))),
        },
        (req, res) => {
          // Closing: each answer ends its connection, so keep-alive clients reconnect elsewhere, not idling the drain.
          if (closing) res.shouldKeepAlive = false
          if (!rpcRoute(req, res)) fastifyHandler(req, res)
        },
      ),
  })
  const sessions = new Map<WebSocket, WsSession>()
  let closing = false

  app.setErrorHandler((err: { code?: string; statusCode?: number }, _req, reply) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const e = errors.bodyTooLarge(deps.maxBodyBytes)
      return reply
        .code(413)
        .type(JSON_TYPE)
        .headers(CORS)
        .send(serializeError(null, toErrorObject(e)))
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500
    if (status === 500) deps.logger.error({ err }, 'unhandled error in HTTP handler')
    return reply
      .code(status)
      .type(JSON_TYPE)
      .send(
        serializeError(null, {
          code: status === 500 ? -32603 : -32600,
          message: status === 500 ? 'Internal error' : 'Bad request',
        }),
      )
  })

  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).headers(CORS).header('allow', 'POST, OPTIONS').type(TEXT).send(BODIES.METHOD_NOT_ALLOWED)

  // POST on these paths never reaches fastify: the bare node:http route (rpc-route.ts) takes it first.
  for (const path of ['/v3', '/v3/*', '/networks/:network/v3', '/networks/:network/v3/*']) {
    app.options(path, preflight)
    app.route({ method: ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD'], url: path, handler: notAllowed })
  }
  // Everything else that no route takes (a POST to a WebSocket path, dot segments, other verbs): the documented
  // text and the credits header, like every answer near an RPC path (docs/errors.md).
  app.setNotFoundHandler(async (req, reply) => {
    if (matchRpcPath(req.url, 'http')) return notAllowed(req, reply)
    return reply.code(404).headers(CORS).type(TEXT).send(BODIES.NOT_AN_ENDPOINT)
  })

  if (!deps.operations.separate)
    registerOperations(app, { networks: deps.networks, pools: deps.pools, metrics: deps.metrics, ...deps.operations })

  // WebSocket: authorized before the upgrade, so a bad key gets the same HTTP status and body as over HTTP.
  // No permessage-deflate: notifications are written as whole frames (./ws-send.ts).
  const wss = new WebSocketServer({ noServer: true, maxPayload: deps.maxWsMessageBytes, perMessageDeflate: false })

  // Connection slots, taken before the upgrade and freed when its TCP socket closes, however it ends (a close
  // frame, an abrupt drop, an upgrade that never completed).
  const keyConnections = createSlots()
  const addressConnections = createSlots()
  const clientAddress = clientAddressResolver(deps.trustProxy)
  const takeConnection = (socket: Duplex, req: IncomingMessage, ctx: CallContext): ChaingateError | undefined => {
    const caps = deps.wsConnections
    if (!caps) return undefined
    const address = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'])
    const freeAddress = addressConnections.take(address, caps.perAddress)
    if (!freeAddress) return errors.wsAddressConnectionLimit(caps.perAddress)
    const perKey = ctx.entry.plan.maxWsConnectionsPerKey ?? caps.perKey
    const freeKey = keyConnections.take(ctx.entry.id, perKey)
    if (!freeKey) {
      freeAddress()
      return errors.wsKeyConnectionLimit(perKey)
    }
    socket.once('close', () => {
      freeAddress()
      freeKey()
    })
    return undefined
  }

  const closeAccountSockets = (accountId: string, reason: string) => {
    for (const [socket, s] of sessions) if (s.accountId === accountId) socket.close(WS_CLOSE.policy, reason)
  }

  const rejectUpgrade = (
    socket: Duplex,
    status: number,
    contentType: string,
    body: string,
    credits: number,
    headers?: Record<string, string>,
  ) => {
    const extra = Object.entries(headers ?? {}).reduce((all, [k, v]) => `${all}${k}: ${v}\r\n`, '')
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\ncontent-type: ${contentType}\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nx-credits-charged: ${credits}\r\n` +
        `connection: close\r\n${extra}\r\n${body}`,
    )
  }

  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    // The URL parser resolves dot segments first, as the upgrade has always done.
    const target = rpcTarget(new URL(req.url ?? '/', 'http://x').pathname, req.headers.host, 'ws', deps.networks)
    if (!target) {
      rejectUpgrade(socket, 404, TEXT, BODIES.WS_NOT_AN_ENDPOINT, 0)
      return
    }
    const headers = {
      authorization: req.headers.authorization,
      origin: req.headers.origin,
      userAgent: req.headers['user-agent'],
      traceparent: req.headers.traceparent as string | undefined,
    }
    const auth = await deps.gateway.connect({
      network: target.network,
      networkLabel: target.label,
      key: target.key,
      ...headers,
    })
    if (auth.ctx === undefined) {
      const code = auth.code!
      if (isLimitCode(code))
        rejectUpgrade(socket, ERROR_REGISTRY[code].httpStatus, JSON_TYPE, limitAnswer(code, null), auth.credits)
      else {
        const r = refusal(code, auth.detail)
        rejectUpgrade(socket, r.status, r.contentType, r.body, auth.credits, r.headers)
      }
      return
    }
    const ctx = auth.ctx
    // Gone while it was authorized: no slot to take (its close has been emitted, or is about to be).
    if (socket.destroyed) return
    const full = takeConnection(socket, req, ctx)
    if (full) {
      rejectUpgrade(socket, full.httpStatus, JSON_TYPE, serializeError(null, toErrorObject(full)), 0)
      return
    }
    // The client's address, for the request explorer (delivery over WebSocket is judged by `deliver`, not by it).
    ctx.client = socket
    wss.handleUpgrade(req, socket, head, (ws) => {
      deps.metrics.wsConnections(1)
      const send = wsWriter(ws, socket, deps.maxWsBufferedBytes)
      const session = createWsSession(ctx, {
        gateway: deps.gateway,
        keys: deps.keys,
        hub: deps.hubs.get(ctx.network.name)!,
        subscriptions: deps.subscriptions,
        upgradeHeaders: headers,
        send,
        close: (code, reason) => ws.close(code, reason),
        onDailyExhausted: (accountId) => closeAccountSockets(accountId, 'daily credit limit reached'),
        live: { networks: deps.networks, pools: deps.pools },
      })
      sessions.set(ws, session)
      ws.on('message', (data, isBinary) => {
        void session
          .handleMessage(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString())
          .catch((err) => {
            deps.logger.error({ err, keyId: session.keyId }, 'websocket message failed')
            send.text(serializeError(null, { code: -32603, message: 'Internal error' }))
          })
      })
      ws.on('close', () => {
        sessions.delete(ws)
        deps.metrics.wsConnections(-1)
        void session.dispose()
      })
      ws.on('error', () => ws.terminate())
    })
  }

  // A key revoked or a network disabled closes the sockets that relied on it.
  deps.keys.onReload(() => {
    for (const [socket, s] of sessions) if (!s.stillAuthorized()) socket.close(WS_CLOSE.policy, REVOKED_REASON)
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
      return app.listen({ host, port })
    },
    closeAccountSockets,
    closeNetworkSockets: (network) => closeNetworkSessions(sessions, network),
    stopKeepAlive() {
      closing = true
    },
    async close(timeoutMs) {
      closing = true
      for (const socket of sessions.keys()) socket.close(WS_CLOSE.goingAway, 'server shutting down')
      await Promise.all([...sessions.values()].map((s) => s.dispose()))
      wss.close()
      let timer: NodeJS.Timeout | undefined
      if (timeoutMs !== undefined)
        timer = setTimeout(() => {
          deps.logger.warn({ timeoutMs }, 'calls still in flight after the drain timeout: closing their connections')
          app.server.closeAllConnections()
        }, timeoutMs)
      try {
        await app.close()
      } finally {
        clearTimeout(timer)
      }
      requestLines.flush()
    },
  }
}
