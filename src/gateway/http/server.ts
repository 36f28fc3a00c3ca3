/**
 * The gateway listener: the hot RPC route on bare node:http (rpc-route.ts), fastify for every other route
 * (./fastify-routes.ts, ./operations.ts, plugins), and `ws` for WebSocket upgrades on the RPC paths
 * (src/shared/rpc-paths.ts; ./ws-upgrade.ts); listening, draining and closing. With them, the only place that sees
 * HTTP types.
 */
import { createServer } from 'node:http'
import Fastify from 'fastify'
import { createRequestLines } from '../../observability/logger.ts'
import { registerOperations } from './operations.ts'
import { createRpcRoute } from './rpc-route.ts'
import { registerFastifyRoutes } from './fastify-routes.ts'
import { createWsUpgrades } from './ws-upgrade.ts'
import type { GatewayServer, GatewayServerDeps } from './server-types.ts'

export type { GatewayServer, GatewayServerDeps } from './server-types.ts'

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
  let closing = false

  registerFastifyRoutes(app, deps)

  if (!deps.operations.separate)
    registerOperations(app, { networks: deps.networks, pools: deps.pools, metrics: deps.metrics, ...deps.operations })

  const ws = createWsUpgrades(deps)

  return {
    app,
    async listen(host, port) {
      for (const p of deps.plugins ?? []) await p(app)
      app.server.on('upgrade', (req, socket, head) => {
        ws.onUpgrade(req, socket, head).catch((err) => {
          deps.logger.error({ err }, 'websocket upgrade failed')
          socket.destroy()
        })
      })
      return app.listen({ host, port })
    },
    closeAccountSockets: ws.closeAccountSockets,
    closeNetworkSockets: ws.closeNetworkSockets,
    stopKeepAlive() {
      closing = true
    },
    async close(timeoutMs) {
      closing = true
      await ws.close()
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
