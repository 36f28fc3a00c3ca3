/** wallet_getSession (CAIP-312): the caller's session; `{sessionScopes: {}}` when it has none. Never fails. */
import type { WalletMethodHandler } from './types.ts'

export const walletGetSession: WalletMethodHandler<'getSession'> = {
  methodName: 'wallet_getSession',
  hookNames: { getSession: true },
  async implementation(_params, hooks) {
    const s = await hooks.getSession()
    if (!s) return { sessionScopes: {} }
    return Object.keys(s.sessionProperties).length > 0
      ? { sessionScopes: s.sessionScopes, sessionProperties: s.sessionProperties }
      : { sessionScopes: s.sessionScopes }
  },
}
