/**
 * A node's answer under an HTTP error status (4xx or 5xx; not a provider refusal, not a redirect, not 413). Some
 * providers and node builds answer the client's own error — a revert, invalid params, a method they lack — with
 * HTTP 400 or 500 and a proper JSON-RPC error body. Such an answer is the node's answer to the call: relayed and
 * charged as the same body on HTTP 200, not retried, the node not marked down (eRPC also reads the body whatever the
 * status: https://docs.erpc.cloud/). Anything else under an error status is the node failing (docs/upstreams.md).
 *
 * The kinds are the ones the rest of the pool already knows: the client-caused texts of classify.ts, the
 * missing-data and missing-method texts of retry-policy.ts. Only runs on error statuses: no cost on HTTP 2xx.
 */
import { CLIENT_CAUSED } from './classify.ts'
import { ALREADY_KNOWN, MISSING_DATA, NO_METHOD } from './retry-policy.ts'

/**
 * JSON-RPC codes that are the call's fault whatever the message: 3 (a revert with its data, geth's `eth_call` and
 * `eth_estimateGas`), -32602 invalid params, -32600 invalid request; -32601 (a method this node lacks) is tried on
 * another node first as on HTTP 200 (retry-policy.ts weakAnswer), then relayed.
 */
const CLIENT_CODES = new Set([3, -32602, -32600, -32601])

/**
 * Whether one JSON-RPC error is the client's own: a code above, or a client-caused text (a revert, a nonce, gas,
 * funds, invalid argument, a range or result limit; a transaction the node already has) — but not a node behind or
 * pruned ("header not found", "missing trie node": a node failure under an error status, retried elsewhere).
 */
export function isClientsError(code: number, message: string): boolean {
  if (NO_METHOD.test(message)) return true
  if (MISSING_DATA.test(message)) return false
  return CLIENT_CODES.has(code) || CLIENT_CAUSED.test(message) || ALREADY_KNOWN.test(message)
}

/**
 * An answer under an error status that judgeAnswer found to be a JSON-RPC answer to the call: undefined when it
 * is the client's own (a single error, or a batch with at least one error entry, every error entry the client's),
 * else what the node said instead, for the unavailable error's message. One parse: error statuses only.
 */
export function notClientsOwn(answer: Buffer): string | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(answer.toString())
  } catch {
    return 'not JSON'
  }
  let errors = 0
  for (const entry of Array.isArray(parsed) ? parsed : [parsed]) {
    const error = (entry as { error?: unknown } | null)?.error
    if (error === null || typeof error !== 'object') continue
    errors++
    const { code, message } = error as { code?: unknown; message?: unknown }
    if (typeof code !== 'number' || typeof message !== 'string' || !isClientsError(code, message))
      return `the node's error: ${String(code)} ${String(message).slice(0, 200)}`
  }
  return errors > 0 ? undefined : 'a result under an error status'
}
