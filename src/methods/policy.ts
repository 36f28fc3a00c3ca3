/**
 * What the gateway does with a method before (or instead of) asking the node. A method the network does not
 * serve (served.ts: an explicit list per network) gets Infura's -32601 body (or, for another chain family's method,
 * a -32601 that says so: unservedRefusal); a served method is forwarded and charged its cost; a catalog entry with a
 * params check (each in its own file) is checked first.
 */
import type { ChaingateError } from '../errors/index.ts'
import { errors } from '../errors/index.ts'
import type { RpcCall } from '../jsonrpc/types.ts'
import { ALL_METHODS, FAMILY_NAMES, type ChainFamily } from './catalog.ts'
import type { MethodValidator } from './entry.ts'
import { heavyFactor } from './prices.ts'
import { article, DEFAULT_SERVED, otherFamily } from './served.ts'

export type MethodDecision =
  | { kind: 'forward' }
  | { kind: 'result'; result: unknown }
  /** Refused for the caller's input: charged as an input error. */
  | { kind: 'error'; error: ChaingateError }

/** A subscription method (eth_subscribe, Solana's accountSubscribe …): WebSocket only. */
const WS_ONLY = 'ws-only'

/**
 * What to do before forwarding a method, when anything: its params check (each in its method's own file), WS_ONLY,
 * or the gateway's own answer (the entry's gatewayResult). One lookup per call; a method is served by one family
 * only, so one map serves every network.
 */
const checks = new Map<string, MethodValidator | typeof WS_ONLY | MethodDecision>()
for (const [method, e] of ALL_METHODS)
  if (e.filter === 'subscription') checks.set(method, WS_ONLY)
  else if ('gatewayResult' in e) checks.set(method, Object.freeze({ kind: 'result', result: e.gatewayResult }))
  else if (e.validate !== undefined) checks.set(method, e.validate)

const FORWARD: MethodDecision = Object.freeze({ kind: 'forward' })

/**
 * Longest method name echoed in the -32601 message; a longer one is cut (the client sent it, no need to send it all
 * back).
 */
const MAX_ECHOED_NAME = 200

/** The name as echoed in a refusal: cut when long. */
const echoed = (m: string) => (m.length > MAX_ECHOED_NAME ? `${m.slice(0, MAX_ECHOED_NAME)}…` : m)

/**
 * The refusal of a method a network does not serve: for another family's method (getBalance on an EVM network,
 * eth_call on a Solana one) a -32601 naming both families, so the client sees it asked the wrong network; else
 * Infura's -32601.
 */
export function unservedRefusal(method: string, family: ChainFamily, network: string): ChaingateError {
  const other = otherFamily(method, family)
  return other === undefined
    ? errors.methodNotAvailable(echoed(method))
    : errors.methodOfOtherFamily(echoed(method), article(other), network, FAMILY_NAMES[family])
}

/** What decide() reads of the network a call is for (src/networks/registry.ts Network). */
export interface NetworkPolicy {
  name: string
  family: ChainFamily
  /** `networks[].heavyScans: refuse`: heavy scans (entries with `heavy`) are refused rather than priced higher. */
  refusesHeavyScans?: boolean
}

/**
 * `served` is the network's method set (`Network.methods`); without it, Infura's default list.
 * Infura's answer for an unknown method: `{"code":-32601,"message":"The method <m> does not exist/is not available"}`
 * (https://docs.metamask.io/services/reference/ethereum/json-rpc-methods/ error codes).
 */
export function decide(
  call: RpcCall,
  transport: 'http' | 'ws',
  served: ReadonlySet<string> = DEFAULT_SERVED,
  network?: NetworkPolicy,
): MethodDecision {
  const m = call.method
  if (!served.has(m))
    return {
      kind: 'error',
      error:
        network === undefined ? errors.methodNotAvailable(echoed(m)) : unservedRefusal(m, network.family, network.name),
    }
  if (network?.refusesHeavyScans === true && heavyFactor(m, call.params) > 1)
    return { kind: 'error', error: errors.heavyScanRefused(m, network.name) }
  const check = checks.get(m)
  if (check === undefined) return FORWARD
  if (typeof check === 'object') return check
  if (check === WS_ONLY) return transport === 'http' ? { kind: 'error', error: errors.onlyOverWebSocket(m) } : FORWARD
  const invalid = check(call.params, m)
  return invalid ? { kind: 'error', error: invalid } : FORWARD
}
