/**
 * Errors the wallet answers with. Codes and texts follow MetaMask's multichain API
 * (../shared/reference/multichain-api.md §3); the wire text is part of the contract for these.
 */
export class WalletRpcError extends Error {
  override readonly name = 'WalletRpcError'
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.code = code
    this.data = data
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }
}

export const MESSAGES = {
  parse: 'Parse error',
  invalidRequest: 'Invalid Request',
  methodNotFound: 'The method does not exist / is not available.',
  invalidParams: 'Invalid method parameter(s).',
  internal: 'Internal JSON-RPC error.',
  unauthorized: 'The requested account and/or method has not been authorized by the user.',
  userRejected: 'User rejected the request.',
  scopesNotSupported: 'Requested scopes are not supported',
  invalidSessionProperties: 'Invalid sessionProperties requested',
} as const

/** One problem in the params: `path` names the field, as in MetaMask's validator (`optionalScopes.eip155:1.methods`). */
export interface ParamProblem {
  path: string
  problem: string
}

export const walletErrors = {
  parse: () => new WalletRpcError(-32700, MESSAGES.parse),
  invalidRequest: (why: string) => new WalletRpcError(-32600, MESSAGES.invalidRequest, { reason: why }),
  methodNotFound: (method: string) => new WalletRpcError(-32601, MESSAGES.methodNotFound, { method }),
  /** -32602; data lists each bad field like MetaMask's validator (M§3), with an enumerable message. */
  invalidParams: (problems: ParamProblem[]) =>
    new WalletRpcError(
      -32602,
      MESSAGES.invalidParams,
      problems.map((p) => ({
        code: -32602,
        message: `${p.path} ${p.problem}`,
        data: { param: p.path.split('.')[0], path: p.path.split('.').slice(1) },
      })),
    ),
  internal: (message: string = MESSAGES.internal) => new WalletRpcError(-32603, message),
  unauthorized: () => new WalletRpcError(4100, MESSAGES.unauthorized),
  userRejected: () => new WalletRpcError(4001, MESSAGES.userRejected),
  /** An approval nobody answered in time: still 4001 (the request was not approved), with the reason in data. */
  approvalTimedOut: (timeoutMs: number) =>
    new WalletRpcError(4001, `The request expired: the user did not answer within ${Math.round(timeoutMs / 1000)} s.`, {
      reason: 'approval_timeout',
      timeoutMs,
    }),
  tooManyPending: (max: number) =>
    new WalletRpcError(-32005, `Too many requests are waiting for the user from this origin (at most ${max}).`),
  scopesNotSupported: () => new WalletRpcError(5100, MESSAGES.scopesNotSupported),
  invalidSessionProperties: () => new WalletRpcError(5302, MESSAGES.invalidSessionProperties),
}

export function isWalletRpcError(value: unknown): value is WalletRpcError {
  return value instanceof WalletRpcError
}

/** Maps an error from ChainAccess (a JSON-RPC error from the node/gateway) to the wire; anything else is -32603. */
export function toWireError(err: unknown): { code: number; message: string; data?: unknown } {
  if (isWalletRpcError(err)) return err.toJSON()
  const e = err as { code?: unknown; message?: unknown; data?: unknown } | undefined
  if (e && typeof e.code === 'number' && Number.isInteger(e.code) && typeof e.message === 'string') {
    return e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data }
  }
  return { code: -32603, message: MESSAGES.internal }
}
