/**
 * What the gateway does with a method before (or instead of) asking the node. A method the network does not
 * serve (served.ts: an explicit list per network) gets Infura's -32601 body; a served method is forwarded and
 * charged its cost; a catalog entry with a params check (each in its own file) is checked first.
 */
import type { ChaingateError } from '../errors/index.ts'
import { errors } from '../errors/index.ts'
import type { RpcCall } from '../jsonrpc/envelope.ts'
import { CATALOG } from './catalog.ts'
import type { MethodValidator } from './entry.ts'
import { DEFAULT_SERVED } from './served.ts'

export type MethodDecision =
  | { kind: 'forward' }
  | { kind: 'result'; result: unknown }
  /** Refused for the caller's input: charged as an input error. */
  | { kind: 'error'; error: ChaingateError }

/** The params checks of the catalog's entries (each in its method's own file). */
const validators = new Map<string, MethodValidator>()
for (const [method, e] of CATALOG) if (e.validate !== undefined) validators.set(method, e.validate)

const FORWARD: MethodDecision = Object.freeze({ kind: 'forward' })
const NO_ACCOUNTS: MethodDecision = Object.freeze({ kind: 'result', result: Object.freeze([]) })

/**
 * Longest method name echoed in the -32601 message; a longer one is cut (the client sent it, no need to send it all
 * back).
 */
const MAX_ECHOED_NAME = 200

/**
 * `served` is the network's method set (`Network.methods`); without it, Infura's default list.
 * Infura's answer for an unknown method: `{"code":-32601,"message":"The method <m> does not exist/is not available"}`
 * (https://docs.metamask.io/services/reference/ethereum/json-rpc-methods/ error codes).
 */
export function decide(
  call: RpcCall,
  transport: 'http' | 'ws',
  served: ReadonlySet<string> = DEFAULT_SERVED,
): MethodDecision {
  const m = call.method
  if (!served.has(m))
    return {
      kind: 'error',
      error: errors.methodNotAvailable(m.length > MAX_ECHOED_NAME ? `${m.slice(0, MAX_ECHOED_NAME)}…` : m),
    }
  switch (m) {
    // No keys are held here (Infura: eth_accounts "always returns an empty array").
    case 'eth_accounts':
      return NO_ACCOUNTS
    case 'eth_subscribe':
    case 'eth_unsubscribe':
      if (transport === 'http') return { kind: 'error', error: errors.onlyOverWebSocket(m) }
      return FORWARD
  }
  const validate = validators.get(m)
  const invalid = validate === undefined ? undefined : validate(call.params, m)
  return invalid ? { kind: 'error', error: invalid } : FORWARD
}
