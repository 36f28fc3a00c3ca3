/**
 * The registry of every refusal the program answers with: one stable code each, its JSON-RPC code, the HTTP status
 * of a whole request refused with it, and what it costs. docs/errors.md documents every code listed here (a
 * test checks it). Wire text is not here: Infura's exact bodies are formatted at the edge
 * (src/gateway/http/infura-bodies.ts).
 */

/**
 * What a refusal costs: `free`; `input` the input-error fee (credits.inputError, 5); `price` the method's price
 * (a call the node, or the gateway in its place, answered).
 */
export type CreditRule = 'free' | 'input' | 'price'

export interface ErrorSpec {
  /** JSON-RPC error code (for limits: Infura's `event` code); null when the refusal is not a JSON-RPC answer. */
  rpcCode: number | null
  /** HTTP status when it answers a whole HTTP request (or refuses a WebSocket upgrade). */
  httpStatus: number
  credits: CreditRule
  /** One line for readers; the exact texts are in docs/errors.md. */
  summary: string
}

const spec = (rpcCode: number | null, httpStatus: number, credits: CreditRule, summary: string): ErrorSpec => ({
  rpcCode,
  httpStatus,
  credits,
  summary,
})

export const ERROR_REGISTRY = {
  // Request envelope (src/jsonrpc)
  PARSE_ERROR: spec(-32700, 400, 'input', 'the body is not JSON'),
  INVALID_REQUEST: spec(-32600, 400, 'input', 'not a JSON-RPC 2.0 request'),
  INVALID_PARAMS: spec(-32602, 400, 'input', 'parameters the gateway checks are wrong'),
  METHOD_NOT_SUPPORTED: spec(-32601, 400, 'input', 'a method this gateway does not serve'),
  METHOD_WRONG_FAMILY: spec(
    -32601,
    400,
    'input',
    "another chain family's method (a Solana method on an EVM network …)",
  ),
  HEAVY_SCAN_REFUSED: spec(
    -32601,
    400,
    'input',
    'a heavy scan (getProgramAccounts without filters, getLargestAccounts) on a network with heavyScans: refuse',
  ),
  EMPTY_BATCH: spec(-32600, 400, 'input', 'an empty batch'),
  BATCH_TOO_LARGE: spec(-32600, 400, 'input', 'more calls than gateway.maxBatchSize'),
  BODY_TOO_LARGE: spec(-32600, 413, 'free', "a body over gateway.maxBodyBytes, or over the network's maxRequestBytes"),
  // Paths (src/gateway/http)
  NOT_AN_ENDPOINT: spec(null, 404, 'free', 'no RPC endpoint at this path and verb'),
  METHOD_NOT_ALLOWED: spec(null, 405, 'free', 'an HTTP verb other than POST on an RPC path'),
  NETWORK_UNKNOWN: spec(null, 404, 'free', 'no network for this Host or path name'),
  // Keys (src/gateway/pipeline/steps/authorize.ts, src/keys/security)
  KEY_REQUIRED: spec(null, 401, 'free', 'no key in the path'),
  KEY_INVALID: spec(null, 401, 'free', 'unknown or revoked key'),
  NETWORK_NOT_ENABLED: spec(null, 401, 'input', 'the key does not have this network enabled'),
  SECRET_INVALID: spec(null, 401, 'input', 'the key requires its secret'),
  JWT_INVALID: spec(null, 401, 'input', 'the key requires a valid JWT'),
  KEY_SETTINGS_REJECTED: spec(-32002, 403, 'input', "refused by the key's allowlists"),
  // Limits (src/credits/limits/memory.ts)
  DAILY_CREDITS_EXHAUSTED: spec(-33000, 402, 'free', "the account's daily credits are used up"),
  ACCOUNT_THROUGHPUT_EXCEEDED: spec(-33200, 429, 'free', "over the plan's credits per second"),
  KEY_THROUGHPUT_EXCEEDED: spec(-33300, 429, 'free', "over the key's credits per second"),
  KEY_DAILY_CREDITS_EXHAUSTED: spec(-33400, 429, 'free', "the key's own daily credits are used up"),
  // Devnet methods (src/gateway/pipeline/dev-calls.ts)
  TOO_MANY_DEV_CALLS: spec(-32005, 429, 'free', "more of one key's devnet method calls at once than allowed (4)"),
  // WebSocket sessions (src/gateway/pipeline/client-subscriptions.ts, src/gateway/http/ws-client.ts)
  SUBSCRIPTION_ID_UNKNOWN: spec(
    -32602,
    200,
    'price',
    "Solana's *Unsubscribe with an id this connection does not hold (Agave's answer: Invalid subscription id.)",
  ),
  SUBSCRIPTION_LIMIT: spec(
    -32005,
    200,
    'price',
    'more subscriptions on one connection than gateway.maxSubscriptionsPerConnection',
  ),
  KEY_SUBSCRIPTION_LIMIT: spec(
    -32005,
    200,
    'price',
    "more subscriptions of one key, across its connections, than its plan's or gateway.maxSubscriptionsPerKey",
  ),
  UPSTREAM_SUBSCRIPTION_LIMIT: spec(
    -32005,
    200,
    'price',
    'a subscription with a new filter while the network holds gateway.maxUpstreamSubscriptionsPerNetwork',
  ),
  WS_KEY_CONNECTION_LIMIT: spec(
    -32005,
    429,
    'free',
    "a WebSocket upgrade beyond the key's open connections: its plan's or gateway.maxWsConnectionsPerKey",
  ),
  WS_ADDRESS_CONNECTION_LIMIT: spec(
    -32005,
    429,
    'free',
    'a WebSocket upgrade beyond gateway.maxWsConnectionsPerAddress connections open from one client address',
  ),
  // eth_getLogs caps (src/methods/eth_getLogs.ts), Infura's answers
  LOGS_RANGE_TOO_LARGE: spec(
    -32602,
    200,
    'free',
    'an eth_getLogs block range wider than networks[].getLogs.maxBlockRange',
  ),
  LOGS_TOO_MANY_RESULTS: spec(
    -32005,
    200,
    'free',
    'an eth_getLogs call matching more logs than networks[].getLogs.maxResults',
  ),
  // Filters, bound to their node and key (src/upstreams/pool/filters.ts): the node's own answer for an unknown filter
  // (geth, anvil)
  FILTER_NOT_FOUND: spec(
    -32000,
    200,
    'free',
    'a filter id this gateway did not hand out to the calling key, or whose node cannot be reached now',
  ),
  // Admission (src/gateway/http/rpc-route.ts)
  OVERLOADED: spec(-32005, 503, 'free', 'more HTTP calls in flight in this process than gateway.maxInFlight'),
  // Nodes (src/upstreams)
  UPSTREAM_UNAVAILABLE: spec(-32603, 503, 'free', 'no node of the network could be reached'),
  UPSTREAM_TIMEOUT: spec(-32603, 504, 'free', 'no node answered within gateway.upstreamTimeoutMs'),
  UPSTREAM_RATE_LIMITED: spec(
    -32603,
    503,
    'free',
    "every node's provider is rate-limiting the gateway or its quota is used up",
  ),
  UPSTREAM_AUTH_FAILED: spec(-32603, 503, 'free', "every node's provider refuses the gateway's credentials"),
  UPSTREAM_ANSWER_TOO_LARGE: spec(-32005, 200, 'free', "a node's answer larger than networks[].maxResponseBytes"),
  UPSTREAM_WRONG_CHAIN: spec(
    -32603,
    503,
    'free',
    "a node answers a chain id other than the network's (at start-up, or no other node is left)",
  ),
  // Operator endpoints and the dashboard
  UNAUTHORIZED: spec(null, 401, 'free', '/metrics, /healthz or /admin/v1 without the configured bearer token'),
  FORBIDDEN: spec(null, 403, 'free', '/admin/v1 with a bearer token other than the configured one'),
  TOO_MANY_ATTEMPTS: spec(null, 429, 'free', '/admin/v1 from an address that sent too many wrong tokens this minute'),
  INTERNAL: spec(-32603, 500, 'free', 'a bug: logged with its stack'),
  NOT_FOUND: spec(null, 404, 'free', 'no such account, key or session'),
  CONFLICT: spec(null, 409, 'free', 'the change conflicts with existing data'),
  VALIDATION: spec(null, 400, 'free', 'an invalid value in a command or form'),
  NOT_AVAILABLE: spec(
    null,
    503,
    'free',
    'an admin API feature this process cannot do now (reload; unlock while Redis is unreachable)',
  ),
  INVALID_INPUT: spec(null, 422, 'free', 'an admin API call with an invalid value: the answer names the field'),
} as const satisfies Record<string, ErrorSpec>

export type ErrorCode = keyof typeof ERROR_REGISTRY

/** Codes the limit store refuses with. */
export type LimitCode =
  | 'DAILY_CREDITS_EXHAUSTED'
  | 'KEY_DAILY_CREDITS_EXHAUSTED'
  | 'ACCOUNT_THROUGHPUT_EXCEEDED'
  | 'KEY_THROUGHPUT_EXCEEDED'

/** Codes key security refuses with (src/keys/security). */
export type KeySecurityCode = 'SECRET_INVALID' | 'JWT_INVALID' | 'KEY_SETTINGS_REJECTED'

export const errorSpec = (code: ErrorCode): ErrorSpec => ERROR_REGISTRY[code]

/** Other parts' registries (the wallet's, on @metamask/rpc-errors) join the docs check in test/errors-docs.test.ts. */
