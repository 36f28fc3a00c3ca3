/**
 * The heartbeat of a subscription node connection (src/upstreams/subscriptions/connection.ts): the family's call
 * for it (EVM `eth_chainId`, Solana `getVersion`: ./protocol.ts) every `heartbeatMs` while the connection holds
 * subscriptions. A node that stops answering is treated as dropped (its socket may stay open); one the pool counts
 * unhealthy at two heartbeats in a row, or that answers another chain id (EVM), is moved off (make before break) to
 * the first healthy node.
 */
import type { HubOptions } from './types.ts'
import { toBig, type Conn } from './node-calls.ts'
import { PROTOCOLS } from './protocol.ts'

/** Heartbeats in a row that find the subscription node unhealthy before it is moved off (hysteresis: no flapping). */
const LEAVE_AFTER_CHECKS = 2

export interface HeartbeatDeps {
  opts: HubOptions
  network: string
  /** Shared subscriptions the hub holds (for the log line). */
  subscriptions(): number
  /** A planned move is under way. */
  moving(): boolean
  /** Moves every subscription to `url`, make before break. */
  moveTo(url: string): Promise<unknown>
  /** The node stopped answering. */
  hung(): void
}

export function startHeartbeat(conn: Conn, deps: HeartbeatDeps): void {
  const { opts, network } = deps
  const everyMs = opts.heartbeatMs ?? 0
  if (everyMs <= 0) return
  const waitMs = Math.min(opts.timeoutMs, Math.max(1000, everyMs))
  let asking = false
  let unhealthy = 0
  let wrongChain = false
  const { method, params } = PROTOCOLS[opts.family ?? 'evm'].liveness
  conn.heartbeat = setInterval(() => {
    if (conn.dead || asking || conn.byNodeId.size === 0) return
    const healthy = opts.isHealthy
    if (wrongChain || (healthy !== undefined && !healthy(conn.url))) {
      // Lagging (its heads late against what calls are served at), failing calls, cordoned: a healthy node is
      // better. Until one takes the subscriptions, they stay here.
      const to = opts.wsUrls().find((u) => u !== conn.url && (healthy === undefined || healthy(u)))
      if ((++unhealthy >= LEAVE_AFTER_CHECKS || wrongChain) && to !== undefined && !deps.moving()) {
        opts.log?.warn(
          { network, upstream: conn.label, subscriptions: deps.subscriptions() },
          'subscription node lagging or failing for the pool: moving subscriptions',
        )
        void deps.moveTo(to) // and still asked below: it may also have stopped answering
      }
    } else unhealthy = 0
    asking = true
    // Any answer, an error too, shows the node is there.
    conn.rpc.request({ jsonrpc: '2.0', id: 1, method, params }, waitMs).then(
      (answer) => {
        asking = false
        // EVM: the answer is the chain id (Solana's nodes are identified at connection only).
        const id = toBig((answer as { result?: unknown }).result)
        if (opts.chainId !== undefined && id !== undefined && id !== BigInt(opts.chainId)) wrongChain = true
      },
      () => {
        asking = false
        if (!conn.dead) deps.hung()
      },
    )
  }, everyMs)
  conn.heartbeat.unref()
}
