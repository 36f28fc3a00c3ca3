/**
 * wallet_revokeSession (CAIP-285, with MetaMask's partial revoke `{scopes: [...]}`): always true, also when the
 * caller has no session.
 */
import { walletErrors } from '../errors.ts'
import { isPlainObject } from '../scopes.ts'
import type { WalletMethodHandler } from './types.ts'

export const walletRevokeSession: WalletMethodHandler<'revokeSession'> = {
  methodName: 'wallet_revokeSession',
  hookNames: { revokeSession: true },
  async implementation(params, hooks) {
    const scopes = isPlainObject(params) ? params.scopes : undefined
    if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string')))
      throw walletErrors.invalidParams([{ path: 'scopes', problem: 'is not of a type(s) array of string' }])
    await hooks.revokeSession(scopes && scopes.length > 0 ? scopes : undefined)
    return true
  },
}
