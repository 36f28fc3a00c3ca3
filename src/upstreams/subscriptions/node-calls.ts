/**
 * The subscription hub's calls to a node over its WebSocket (src/upstreams/subscriptions/connection.ts): the
 * connection's record, one JSON-RPC call, a node's error answer, hex quantities, and the chain id check.
 */
import { hexToBigInt, isHex } from '../../shared/hex.ts'
import type { RpcErrorObject } from '../../jsonrpc/envelope.ts'
import { errors } from '../../errors/index.ts'
import type { WsRpcConnection } from '../pool/ws-connection.ts'
import { solanaChainOf } from '../pool/family-rules.ts'
import type { HubOptions, Shared } from './hub.ts'

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
 * Which chain a new connection's node is on, checked against the network's when known: EVM eth_chainId; Solana the
 * CAIP-2 id of its genesis hash (src/upstreams/pool/family-rules.ts).
 */
export async function checkIdentity(
  conn: Conn,
  network: string,
  opts: Pick<HubOptions, 'family' | 'chainId' | 'chain'>,
): Promise<void> {
  if ((opts.family ?? 'evm') === 'evm') return checkChainId(conn, network, opts.chainId)
  const hash = await call(conn, 'getGenesisHash', [])
  const expected = opts.chain?.()
  const got = typeof hash === 'string' ? solanaChainOf(hash) : undefined
  if (expected !== undefined && got !== expected)
    throw errors.upstreamUnavailable(network, `${conn.label} is on ${String(got)}, not ${expected}`)
}

/** The node's chain id, checked against the network's (when known). */
export async function checkChainId(conn: Conn, network: string, chainId: number | undefined): Promise<void> {
  const id = toBig(await call(conn, 'eth_chainId', []))
  if (chainId !== undefined && id !== BigInt(chainId))
    throw errors.upstreamUnavailable(network, `${conn.label} is on chain ${String(id)}, not ${chainId}`)
}
