/**
 * wallet_invokeMethod (CAIP-27, old revision: param `scope`). MetaMask's order: schema (-32602) → the scope must
 * be a CAIP-2 chain ID or `wallet` (-32603 otherwise, e.g. a bare namespace) → no session, scope not granted, or
 * method missing or not granted in it: 4100 → run it. The result is the spec's envelope (docs/wallet.md).
 */
import { isCaipChainId } from '@metamask/utils'
import { walletErrors, type ParamProblem } from '../errors.ts'
import { isPlainObject } from '../scopes.ts'
import type { WalletMethodHandler } from './types.ts'

/** MetaMask's OpenRPC ScopeString pattern, unanchored as its validator applies it. */
const SCOPE_PATTERN = '[-a-z0-9]{3,8}(:[-_a-zA-Z0-9]{1,32})?'
const SCOPE_STRING = new RegExp(SCOPE_PATTERN)

function validate(params: unknown): { scope: string; method: unknown; params: unknown } {
  if (!isPlainObject(params))
    throw walletErrors.invalidParams([{ path: 'params', problem: 'is not of a type(s) object' }])
  const problems: ParamProblem[] = []
  const { scope, request } = params
  if (scope === undefined) problems.push({ path: 'scope', problem: 'is required, but is undefined' })
  else if (typeof scope !== 'string') problems.push({ path: 'scope', problem: 'is not of a type(s) string' })
  else if (!SCOPE_STRING.test(scope))
    problems.push({ path: 'scope', problem: `does not match pattern "${SCOPE_PATTERN}"` })
  if (request === undefined) problems.push({ path: 'request', problem: 'is required, but is undefined' })
  else if (!isPlainObject(request)) problems.push({ path: 'request', problem: 'is not of a type(s) object' })
  else {
    // A missing method is not a schema error in MetaMask: it is simply not authorized (4100).
    if (request.method !== undefined && typeof request.method !== 'string')
      problems.push({ path: 'request.method', problem: 'is not of a type(s) string' })
    if (request.params !== undefined && request.params !== null && typeof request.params !== 'object')
      problems.push({ path: 'request.params', problem: 'is not of a type(s) array,object' })
  }
  if (problems.length > 0) throw walletErrors.invalidParams(problems)
  const r = request as { method?: unknown; params?: unknown }
  return { scope: scope as string, method: r.method, params: r.params }
}

export const walletInvokeMethod: WalletMethodHandler<'getSession' | 'invokeInScope'> = {
  methodName: 'wallet_invokeMethod',
  hookNames: { getSession: true, invokeInScope: true },
  async implementation(params, hooks) {
    const call = validate(params)
    if (!isCaipChainId(call.scope) && call.scope !== 'wallet') throw walletErrors.invalidInternalScope()
    const session = await hooks.getSession()
    const sessionScope = session?.sessionScopes[call.scope]
    if (!sessionScope || typeof call.method !== 'string' || !sessionScope.methods.includes(call.method))
      throw walletErrors.unauthorized()
    const result = await hooks.invokeInScope(call.scope, sessionScope, call.method, call.params)
    return { scope: call.scope, result: { method: call.method, result } }
  },
}
