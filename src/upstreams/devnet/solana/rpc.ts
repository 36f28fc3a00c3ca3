/**
 * The embedded Solana devnet's JSON-RPC methods (https://solana.com/docs/rpc/http), answered from the chain
 * (chain.ts) with the validator's shapes, one module per area; this one is the method table and the dispatch.
 */
import { RpcError, typeName } from './codec.ts'
import { accountMethods } from './rpc-accounts.ts'
import { blockMethods } from './rpc-blocks.ts'
import { clusterMethods } from './rpc-cluster.ts'
import type { Handler, Params, RpcContext } from './rpc-params.ts'
import { tokenMethods } from './rpc-tokens.ts'
import { transactionMethods } from './rpc-transactions.ts'

const methods: Record<string, Handler> = {
  ...clusterMethods,
  ...blockMethods,
  ...accountMethods,
  ...tokenMethods,
  ...transactionMethods,
}

export const METHOD_NAMES = Object.keys(methods)

export interface JsonRpcRequest {
  jsonrpc?: unknown
  id?: unknown
  method?: unknown
  params?: unknown
}

export type JsonRpcResponse = Record<string, unknown>

/** One JSON-RPC 2.0 request → its response (never throws). */
export function handleRequest(request: unknown, ctx: RpcContext): JsonRpcResponse {
  const isObject = typeof request === 'object' && request !== null && !Array.isArray(request)
  const id = isObject && 'id' in request ? ((request as JsonRpcRequest).id ?? null) : null
  const fail = (code: number, message: string, data?: unknown): JsonRpcResponse => ({
    jsonrpc: '2.0',
    error: data === undefined ? { code, message } : { code, message, data },
    id,
  })
  if (!isObject) return fail(-32600, 'Invalid request')
  const { jsonrpc, method, params } = request as JsonRpcRequest
  if (jsonrpc !== '2.0' || typeof method !== 'string') return fail(-32600, 'Invalid request')
  const handler = Object.hasOwn(methods, method) ? methods[method] : undefined
  if (!handler) return fail(-32601, 'Method not found')
  if (params !== undefined && params !== null && !Array.isArray(params))
    return fail(-32602, `Invalid params: invalid type: ${typeName(params)}, expected a sequence.`)
  try {
    return { jsonrpc: '2.0', result: handler((params as Params | undefined) ?? [], ctx), id }
  } catch (error) {
    if (error instanceof RpcError) return fail(error.code, error.message, error.data)
    return fail(-32603, 'Internal error')
  }
}
