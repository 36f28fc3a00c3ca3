/**
 * One error taxonomy for the whole program. Every failure that reaches a client is a `ChaingateError` with a
 * stable `code` (asserted by tests and listed in docs/errors.md), the JSON-RPC error code and the HTTP status it
 * maps to. Errors become wire format only at the edge (src/http), never inside the core.
 */
export type ErrorCode =
  | 'PARSE_ERROR'
  | 'INVALID_REQUEST'
  | 'INVALID_PARAMS'
  | 'METHOD_NOT_FOUND'
  | 'METHOD_NOT_SUPPORTED'
  | 'EMPTY_BATCH'
  | 'BATCH_TOO_LARGE'
  | 'BODY_TOO_LARGE'
  | 'KEY_REQUIRED'
  | 'KEY_INVALID'
  | 'SECRET_INVALID'
  | 'JWT_INVALID'
  | 'NETWORK_NOT_ENABLED'
  | 'NETWORK_UNKNOWN'
  | 'KEY_SETTINGS_REJECTED'
  | 'DAILY_CREDITS_EXHAUSTED'
  | 'ACCOUNT_THROUGHPUT_EXCEEDED'
  | 'KEY_THROUGHPUT_EXCEEDED'
  | 'KEY_DAILY_CREDITS_EXHAUSTED'
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_TIMEOUT'
  | 'INTERNAL'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'VALIDATION'

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
    this.rpcCode = options.rpcCode ?? -32603
    this.httpStatus = options.httpStatus ?? 500
    this.data = options.data
    this.retryable = options.retryable ?? false
  }
}

// Constructors for the errors the gateway answers with; texts follow Infura where clients parse them
// (../shared/reference/infura.md §3).
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
  upstreamUnavailable: (network: string, why: string) =>
    new ChaingateError('UPSTREAM_UNAVAILABLE', `network ${network} is unavailable: ${why}`, {
      rpcCode: -32603,
      httpStatus: 503,
      retryable: true,
    }),
  upstreamTimeout: (network: string, timeoutMs: number) =>
    new ChaingateError('UPSTREAM_TIMEOUT', `network ${network} is unavailable: no answer within ${timeoutMs} ms`, {
      rpcCode: -32603,
      httpStatus: 504,
      retryable: true,
    }),
  notFound: (what: string) => new ChaingateError('NOT_FOUND', `${what} not found`, { httpStatus: 404 }),
  conflict: (why: string) => new ChaingateError('CONFLICT', why, { httpStatus: 409 }),
  validation: (why: string) => new ChaingateError('VALIDATION', why, { httpStatus: 400 }),
}

export function isChaingateError(value: unknown): value is ChaingateError {
  return value instanceof ChaingateError
}
