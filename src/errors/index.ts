/**
 * One error taxonomy for the whole program. Every failure that reaches a client has a stable code from the
 * registry (./registry.ts: JSON-RPC code, HTTP status, credit rule; listed in docs/errors.md). A `ChaingateError`
 * carries one with its message; refusals without a message (limits, key security) travel as the bare code.
 * Errors become wire format only at the edge (src/gateway/http).
 */
import { ERROR_REGISTRY, type ErrorCode } from './registry.ts'
export type { ErrorCode } from './registry.ts'

export interface ChaingateErrorOptions {
  /** JSON-RPC error code sent to clients. */
  rpcCode?: number
  /** HTTP status when the error answers a whole HTTP request. */
  httpStatus?: number
  /** Extra data for the JSON-RPC `data` member. */
  data?: unknown
  /** Whether trying again (later, or on another upstream) may succeed. */
  retryable?: boolean
  cause?: unknown
}

export class ChaingateError extends Error {
  override readonly name = 'ChaingateError'
  readonly code: ErrorCode
  readonly rpcCode: number
  readonly httpStatus: number
  readonly data: unknown
  readonly retryable: boolean

  constructor(code: ErrorCode, message: string, options: ChaingateErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.rpcCode = options.rpcCode ?? ERROR_REGISTRY[code].rpcCode ?? -32603
    this.httpStatus = options.httpStatus ?? ERROR_REGISTRY[code].httpStatus
    this.data = options.data
    this.retryable = options.retryable ?? false
  }
}

// Constructors for the errors the gateway answers with; texts follow Infura where clients parse them
// (https://docs.metamask.io/services/reference/ and docs/errors.md).
export const errors = {
  parse: () => new ChaingateError('PARSE_ERROR', 'Parse error', { rpcCode: -32700, httpStatus: 400 }),
  invalidRequest: (why: string) =>
    new ChaingateError('INVALID_REQUEST', `Invalid request: ${why}`, { rpcCode: -32600, httpStatus: 400 }),
  invalidParams: (why: string) =>
    new ChaingateError('INVALID_PARAMS', `Invalid params: ${why}`, { rpcCode: -32602, httpStatus: 400 }),
  methodNotAvailable: (method: string) =>
    new ChaingateError('METHOD_NOT_SUPPORTED', `The method ${method} does not exist/is not available`, {
      rpcCode: -32601,
      httpStatus: 400,
    }),
  /**
   * A method of another chain family than the network's (src/methods/policy.ts, unservedRefusal): `methodFamily`
   * with its article ("a Solana", "an EVM").
   */
  methodOfOtherFamily: (method: string, methodFamily: string, network: string, networkFamily: string) =>
    new ChaingateError(
      'METHOD_WRONG_FAMILY',
      `${method} is ${methodFamily} method; this network (${network}) is ${networkFamily}`,
      { rpcCode: -32601, httpStatus: 400 },
    ),
  heavyScanRefused: (method: string, network: string) =>
    new ChaingateError(
      'HEAVY_SCAN_REFUSED',
      `${method} without filters scans a whole program or cluster; network ${network} does not serve such scans: ` +
        'add filters (memcmp, dataSize) or ask a narrower method',
      { rpcCode: -32601, httpStatus: 400 },
    ),
  onlyOverWebSocket: (method: string) =>
    new ChaingateError('METHOD_NOT_SUPPORTED', `${method} is only available over WebSocket: connect to /ws/v3/<key>`, {
      rpcCode: -32601,
      httpStatus: 400,
    }),
  emptyBatch: () =>
    new ChaingateError('EMPTY_BATCH', 'Invalid request: empty batch', { rpcCode: -32600, httpStatus: 400 }),
  batchTooLarge: (max: number) =>
    new ChaingateError('BATCH_TOO_LARGE', `batch too large: at most ${max} calls per batch`, {
      rpcCode: -32600,
      httpStatus: 400,
    }),
  bodyTooLarge: (maxBytes: number) =>
    new ChaingateError('BODY_TOO_LARGE', `request body too large: at most ${maxBytes} bytes`, {
      rpcCode: -32600,
      httpStatus: 413,
    }),
  /** Agave's answer to an unsubscribe of an id the connection does not hold (agave rpc/src/rpc_pubsub.rs). */
  subscriptionIdUnknown: () =>
    new ChaingateError('SUBSCRIPTION_ID_UNKNOWN', 'Invalid subscription id.', { rpcCode: -32602, httpStatus: 200 }),
  subscriptionLimit: (max: number) =>
    new ChaingateError(
      'SUBSCRIPTION_LIMIT',
      `limit exceeded: at most ${max} subscriptions per connection (unsubscribe first, or open another connection)`,
    ),
  keySubscriptionLimit: (max: number) =>
    new ChaingateError(
      'KEY_SUBSCRIPTION_LIMIT',
      `limit exceeded: at most ${max} subscriptions per API key across its connections (unsubscribe first)`,
    ),
  upstreamSubscriptionLimit: (network: string, max: number) =>
    new ChaingateError(
      'UPSTREAM_SUBSCRIPTION_LIMIT',
      `limit exceeded: at most ${max} distinct subscriptions on network ${network} (subscribe to a filter already ` +
        'in use, or try again later)',
    ),
  wsKeyConnectionLimit: (max: number) =>
    new ChaingateError(
      'WS_KEY_CONNECTION_LIMIT',
      `limit exceeded: at most ${max} WebSocket connections per API key (close one first)`,
    ),
  wsAddressConnectionLimit: (max: number) =>
    new ChaingateError(
      'WS_ADDRESS_CONNECTION_LIMIT',
      `limit exceeded: at most ${max} WebSocket connections per client address (close one first)`,
    ),
  upstreamUnavailable: (network: string, why: string) =>
    new ChaingateError('UPSTREAM_UNAVAILABLE', `network ${network} is unavailable: ${why}`, {
      rpcCode: -32603,
      httpStatus: 503,
      retryable: true,
    }),
  overloaded: () =>
    new ChaingateError('OVERLOADED', 'server overloaded: too many calls in flight, retry shortly', {
      rpcCode: -32005,
      httpStatus: 503,
      retryable: true,
    }),
  upstreamTimeout: (network: string, timeoutMs: number) =>
    new ChaingateError('UPSTREAM_TIMEOUT', `network ${network} is unavailable: no answer within ${timeoutMs} ms`, {
      rpcCode: -32603,
      httpStatus: 504,
      retryable: true,
    }),
  tooManyDevCalls: (max: number) =>
    new ChaingateError(
      'TOO_MANY_DEV_CALLS',
      `too many concurrent dev calls for this key: at most ${max} devnet method calls at once (wait for one to end)`,
      { rpcCode: -32005, httpStatus: 429 },
    ),
  /** geth's and anvil's exact answer to an unknown filter id: clients (viem) re-create the filter on it. */
  filterNotFound: () =>
    new ChaingateError('FILTER_NOT_FOUND', 'filter not found', { rpcCode: -32000, httpStatus: 200 }),
  notFound: (what: string) => new ChaingateError('NOT_FOUND', `${what} not found`, { httpStatus: 404 }),
  conflict: (why: string) => new ChaingateError('CONFLICT', why, { httpStatus: 409 }),
  /** `field`: the input at fault, when one is (the admin API names it in its 422 answer). */
  validation: (why: string, field?: string) =>
    new ChaingateError('VALIDATION', why, { httpStatus: 400, data: field === undefined ? undefined : { field } }),
  unauthorized: () => new ChaingateError('UNAUTHORIZED', 'send the admin bearer token', { httpStatus: 401 }),
  forbidden: () => new ChaingateError('FORBIDDEN', 'this bearer token is not the admin token', { httpStatus: 403 }),
  /** `retryAfterSeconds`: sent as Retry-After. */
  tooManyAttempts: (retryAfterSeconds: number) =>
    new ChaingateError(
      'TOO_MANY_ATTEMPTS',
      `too many wrong admin tokens from your address; try again in ${retryAfterSeconds} s`,
      { httpStatus: 429, data: { retryAfterSeconds } },
    ),
  notAvailable: (why: string) => new ChaingateError('NOT_AVAILABLE', why, { httpStatus: 503 }),
  invalidInput: (field: string, why: string) =>
    new ChaingateError('INVALID_INPUT', `${field}: ${why}`, { httpStatus: 422, data: { field } }),
}

export function isChaingateError(value: unknown): value is ChaingateError {
  return value instanceof ChaingateError
}
