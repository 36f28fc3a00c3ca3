/**
 * The gateway listener's WebSocket side (src/gateway/http/server.ts hands it every `upgrade`): the upgrade on the RPC
 * paths (src/shared/rpc-paths.ts) authorized before it completes, so a bad key gets the same HTTP status and body as
 * over HTTP; the per-key and per-address connection caps; one session per socket (./ws-client.ts); closing them.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { type ChaingateError, errors } from '../../errors/index.ts'
import { ERROR_REGISTRY } from '../../errors/registry.ts'
import type { CallContext } from '../pipeline/types.ts'
import { serializeError, toErrorObject } from '../../jsonrpc/envelope.ts'
import { BODIES, JSON_TYPE, TEXT, isLimitCode, limitAnswer, refusal } from './infura-bodies.ts'
import { rpcTarget } from './rpc-target.ts'
import { createSlots } from '../../shared/slots.ts'
import { clientAddressResolver } from './client-address.ts'
import { wsWriter } from './ws-send.ts'
import { closeNetworkSessions, createWsSession, REVOKED_REASON, type WsSession } from './ws-client.ts'
import { WS_CLOSE } from './ws-close-codes.ts'
import type { GatewayServerDeps } from './server-types.ts'

export interface WsUpgrades {
  /** Takes one `upgrade` of the listener; rejects it with an HTTP answer when it is not for an RPC path or refused. */
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>
  closeAccountSockets(accountId: string, reason: string): void
  closeNetworkSockets(network: string): void
  /** Closes every socket (going away), waits for their sessions to dispose, and stops the WebSocket server. */
  close(): Promise<void>
}

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
}

/** An upgrade refused with an HTTP answer, as the POST route would answer it (its credits charged included). */
interface UpgradeRefusal {
  status: number
  contentType: string
  body: string
  credits: number
  headers?: Record<string, string> | undefined
}

function rejectUpgrade(socket: Duplex, { status, contentType, body, credits, headers }: UpgradeRefusal) {
  const extra = Object.entries(headers ?? {}).reduce((all, [k, v]) => `${all}${k}: ${v}\r\n`, '')
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\ncontent-type: ${contentType}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-credits-charged: ${credits}\r\n` +
      `connection: close\r\n${extra}\r\n${body}`,
  )
}

export function createWsUpgrades(deps: GatewayServerDeps): WsUpgrades {
  const sessions = new Map<WebSocket, WsSession>()
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

  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    // The URL parser resolves dot segments first, as the upgrade has always done.
    const target = rpcTarget(new URL(req.url ?? '/', 'http://x').pathname, req.headers.host, 'ws', deps.networks)
    if (!target) {
      rejectUpgrade(socket, { status: 404, contentType: TEXT, body: BODIES.WS_NOT_AN_ENDPOINT, credits: 0 })
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
        rejectUpgrade(socket, {
          status: ERROR_REGISTRY[code].httpStatus,
          contentType: JSON_TYPE,
          body: limitAnswer(code, null),
          credits: auth.credits,
        })
      else {
        const r = refusal(code, auth.detail)
        rejectUpgrade(socket, {
          status: r.status,
          contentType: r.contentType,
          body: r.body,
          credits: auth.credits,
          headers: r.headers,
        })
      }
      return
    }
    const ctx = auth.ctx
    // Gone while it was authorized: no slot to take (its close has been emitted, or is about to be).
    if (socket.destroyed) return
    const full = takeConnection(socket, req, ctx)
    if (full) {
      rejectUpgrade(socket, {
        status: full.httpStatus,
        contentType: JSON_TYPE,
        body: serializeError(null, toErrorObject(full)),
        credits: 0,
      })
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
    onUpgrade,
    closeAccountSockets,
    closeNetworkSockets: (network) => closeNetworkSessions(sessions, network),
    async close() {
      for (const socket of sessions.keys()) socket.close(WS_CLOSE.goingAway, 'server shutting down')
      await Promise.all([...sessions.values()].map((s) => s.dispose()))
      wss.close()
    },
  }
}
