/**
 * What the gateway does with a method before (or instead of) asking the node. The default for any method is
 * "forward, charge its cost"; only methods that behave differently are listed, each in its own file.
 */
import type { ChaingateError } from '../errors/index.ts'
import { errors } from '../errors/index.ts'
import type { RpcCall } from '../jsonrpc/envelope.ts'
import { validateGetBlockByNumber } from './eth_getBlockByNumber.ts'

export type MethodDecision =
  | { kind: 'forward' }
  | { kind: 'result'; result: unknown }
  /** Refused for the caller's input: charged as an input error. */
  | { kind: 'error'; error: ChaingateError }

// Namespaces an Infura-like endpoint serves. Node administration (admin_, personal_, miner_, txpool_) and dev
// node controls (anvil_, evm_, hardhat_) are not exposed through keys (../shared/reference/infura.md §6).
const FORWARDED_NAMESPACES = ['eth_', 'net_', 'web3_', 'trace_', 'debug_']

const validators = new Map<string, (params: RpcCall['params']) => ChaingateError | undefined>([['eth_getBlockByNumber', validateGetBlockByNumber]])

const FORWARD: MethodDecision = Object.freeze({ kind: 'forward' })

const forwarded = (m: string) => {
  for (const ns of FORWARDED_NAMESPACES) if (m.startsWith(ns)) return true
  return false
}

export function decide(call: RpcCall, transport: 'http' | 'ws'): MethodDecision {
  const m = call.method
  switch (m) {
    // No keys are held here (Infura: "Use eth_sendRawTransaction instead").
    case 'eth_sendTransaction':
    case 'eth_sign':
    case 'eth_signTransaction':
    case 'eth_signTypedData':
    case 'eth_signTypedData_v4':
      return { kind: 'error', error: errors.methodNotAvailable(m) }
    case 'eth_accounts':
      return { kind: 'result', result: [] }
    case 'eth_subscribe':
    case 'eth_unsubscribe':
      if (transport === 'http')
        return { kind: 'error', error: errors.onlyOverWebSocket(m) }
      return FORWARD
  }
  if (!forwarded(m)) return { kind: 'error', error: errors.methodNotAvailable(m) }
  const validate = validators.get(m)
  const invalid = validate === undefined ? undefined : validate(call.params)
  return invalid ? { kind: 'error', error: invalid } : FORWARD
}
