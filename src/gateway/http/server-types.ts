/**
 * The gateway listener's dependencies and handle (src/gateway/http/server.ts), apart so the parts it assembles
 * (./ws-upgrade.ts, ./fastify-routes.ts) read them without importing the server back.
 */
import type { FastifyInstance } from 'fastify'
import type { KeySnapshot } from '../../keys/snapshot.ts'
import type { Gateway } from '../pipeline/execute.ts'
import type { SubscriptionDeps } from '../pipeline/types.ts'
import type { NetworkRegistry } from '../../networks/registry.ts'
import type { Logger } from '../../observability/logger.ts'
import type { Metrics } from '../../observability/metrics.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import type { SubscriptionHub } from '../../upstreams/subscriptions/hub.ts'
import type { OperationsDeps } from './operations.ts'

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
