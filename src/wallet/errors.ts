/**
 * Errors the wallet answers with, built on `@metamask/rpc-errors` (EIP-1474 -326xx codes, EIP-1193 provider
 * codes 4001/4100) plus the CAIP-25 codes 5100/5302. Codes and texts follow MetaMask's multichain API
 * (https://github.com/MetaMask/core/tree/main/packages/multichain-api-middleware); the wire text is part of the
 * contract for these. docs/wallet.md lists them.
 */
import { JsonRpcError, providerErrors, rpcErrors } from '@metamask/rpc-errors'

export { JsonRpcError }

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
  invalidCaipAccountId: 'Invalid CAIP account ID.',
  invalidInternalScope: 'scopeString is not a valid InternalScopeString',
} as const

/**
 * One problem in the params: `path` names the field, as in MetaMask's validator (`optionalScopes.eip155:1.methods`).
 */
export interface ParamProblem {
  path: string
  problem: string
}

export const walletErrors = {
  parse: () => rpcErrors.parse({ message: MESSAGES.parse }),
  invalidRequest: (why: string) =>
    rpcErrors.invalidRequest({ message: MESSAGES.invalidRequest, data: { reason: why } }),
  /** The gateway's own answer for the same input (src/jsonrpc/body-check.ts). */
  nestedTooDeep: (why: string) => rpcErrors.invalidRequest({ message: `Invalid request: ${why}` }),
  methodNotFound: (method: string) => rpcErrors.methodNotFound({ message: MESSAGES.methodNotFound, data: { method } }),
  /** -32602; data lists each bad field like MetaMask's validator, with an enumerable message. */
  invalidParams: (problems: ParamProblem[]) =>
    rpcErrors.invalidParams({
      message: MESSAGES.invalidParams,
      data: problems.map((p) => ({
        code: -32602,
        message: `${p.path} ${p.problem}`,
        data: { param: p.path.split('.')[0]!, path: p.path.split('.').slice(1) },
      })),
    }),
  internal: (message: string = MESSAGES.internal) => rpcErrors.internal({ message }),
  unauthorized: () => providerErrors.unauthorized({ message: MESSAGES.unauthorized }),
  userRejected: () => providerErrors.userRejectedRequest({ message: MESSAGES.userRejected }),
  /** An approval nobody answered in time: still 4001 (the request was not approved), with the reason in data. */
  approvalTimedOut: (timeoutMs: number) =>
    providerErrors.userRejectedRequest({
      message: `The request expired: the user did not answer within ${Math.round(timeoutMs / 1000)} s.`,
      data: { reason: 'approval_timeout', timeoutMs },
    }),
  /** 4001 for a waiting request that can no longer be answered: its session ended, or the wallet stopped. */
  cancelled: (reason: 'session_ended' | 'shutdown') =>
    providerErrors.userRejectedRequest({ message: MESSAGES.userRejected, data: { reason } }),
  tooManyPending: (max: number) =>
    rpcErrors.limitExceeded({
      message: `Too many requests are waiting for the user from this dapp (at most ${max}).`,
    }),
  /** CAIP-25 5100: no requested scope is supported. */
  scopesNotSupported: () => new JsonRpcError(5100, MESSAGES.scopesNotSupported),
  /** CAIP-25 5302: `sessionProperties: {}`. */
  invalidSessionProperties: () => new JsonRpcError(5302, MESSAGES.invalidSessionProperties),
  /** MetaMask answers a malformed CAIP-10 account in wallet_createSession with -32603 and this text. */
  invalidCaipAccountId: () => rpcErrors.internal({ message: MESSAGES.invalidCaipAccountId }),
  /** MetaMask answers wallet_invokeMethod on a bare namespace ("eip155") with -32603 and this text. */
  invalidInternalScope: () => rpcErrors.internal({ message: MESSAGES.invalidInternalScope }),
  /** EIP-3085 wallet_addEthereumChain for a chain the wallet does not serve (it cannot add networks itself). */
  unrecognizedChain: (chainId: string) =>
    providerErrors.custom({
      code: 4902,
      message:
        `Unrecognized chain ID ${JSON.stringify(chainId)}: this wallet serves only the gateway's networks ` +
        "(add the network to chaingate's config).",
    }),
}

export function isWalletRpcError(value: unknown): value is JsonRpcError<never> {
  return value instanceof JsonRpcError
}

type WireError = { code: number; message: string; data?: unknown }

/** Maps an error from ChainAccess (a JSON-RPC error from the node/gateway) to the wire; anything else is -32603. */
export function toWireError(err: unknown): WireError {
  // Never rpc-errors' serialize(): it adds the stack and `data.cause`.
  const e = err as { code?: unknown; message?: unknown; data?: unknown } | undefined
  if (e && typeof e.code === 'number' && Number.isInteger(e.code) && typeof e.message === 'string') {
    return e.data === undefined
      ? { code: e.code, message: e.message }
      : { code: e.code, message: e.message, data: e.data }
  }
  return { code: -32603, message: MESSAGES.internal }
}
