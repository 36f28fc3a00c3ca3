import type { WalletMethodHandler } from './types.ts'
import { walletCreateSession } from './wallet-create-session.ts'
import { walletGetSession } from './wallet-get-session.ts'
import { walletInvokeMethod } from './wallet-invoke-method.ts'
import { walletRevokeSession } from './wallet-revoke-session.ts'

/** The four methods of the multichain API; anything else is -32601. */
export const WALLET_HANDLERS: readonly WalletMethodHandler<any>[] = [
  walletCreateSession,
  walletGetSession,
  walletInvokeMethod,
  walletRevokeSession,
]

export { selectHooks, type WalletHooks, type WalletMethodHandler } from './types.ts'
