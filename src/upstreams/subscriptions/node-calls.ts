/**
 * The subscription hub's calls to a node over its WebSocket (src/upstreams/subscriptions/connection.ts): the
 * connection's record, one JSON-RPC call, a node's error answer, hex quantities, and the chain id check.
 */
import { hexToBigInt, isHex } from '../../shared/hex.ts'
import type { RpcErrorObject } from '../../jsonrpc/envelope.ts'
import { errors } from '../../errors/index.ts'
import type { WsRpcConnection } from '../../jsonrpc/ws-connection.ts'
import { SOLANA_PROTOCOL } from './protocol.ts'
import type { HubOptions, Shared } from './types.ts'

/** A JSON-RPC error answer from the node, passed through to the client unchanged. */
export class NodeRpcError extends Error {
  readonly error: RpcErrorObject
  constructor(error: RpcErrorObject) {
    super(error.message)
    this.error = error
  }
}

export interface Conn {
  url: string
  label: string
  rpc: WsRpcConnection
  byNodeId: Map<string, Shared>
  early: { id: string; result: unknown }[]
  dead: boolean
  heartbeat: NodeJS.Timeout | undefined
}

/** A quantity of 1 to 64 hex digits as a bigint; undefined for anything else. */
export const toBig = (hex: unknown): bigint | undefined =>
  isHex(hex) && hex.length > 2 && hex.length <= 66 ? hexToBigInt(hex) : undefined

export const call = async (conn: Conn, method: string, params: unknown[]): Promise<unknown> => {
  const answer = (await conn.rpc.request({ jsonrpc: '2.0', id: 1, method, params })) as {
    result?: unknown
    error?: RpcErrorObject
  }
  if (answer.error) throw new NodeRpcError(answer.error)
  return answer.result
}

/**
 * Whether a new connection's node is one to use: EVM, its eth_chainId against the network's (when known). Solana:
 * a validator's PubSub socket answers subscriptions and getVersion only (agave rpc/src/rpc_pubsub.rs), so which
 * cluster the node is on is the pool's finding (getGenesisHash over HTTP, src/upstreams/pool/family-rules.ts), and
 * the socket is asked getVersion: any answer, an error too, shows the node is there.
 */
export async function checkIdentity(
  conn: Conn,
  network: string,
  opts: Pick<HubOptions, 'family' | 'chainId' | 'wrongChain'>,
): Promise<void> {
  if ((opts.family ?? 'evm') === 'evm') return checkChainId(conn, network, opts.chainId)
  if (opts.wrongChain?.(conn.url) === true)
    throw errors.upstreamUnavailable(network, `${conn.label} is on another cluster (its genesis hash)`)
  await conn.rpc.request({ jsonrpc: '2.0', id: 1, ...SOLANA_PROTOCOL.liveness })
}

/** The node's chain id, checked against the network's (when known). */
export async function checkChainId(conn: Conn, network: string, chainId: number | undefined): Promise<void> {
  const id = toBig(await call(conn, 'eth_chainId', []))
  if (chainId !== undefined && id !== BigInt(chainId))
    throw errors.upstreamUnavailable(network, `${conn.label} is on chain ${String(id)}, not ${chainId}`)
}
