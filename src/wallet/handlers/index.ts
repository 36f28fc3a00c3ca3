import type { WalletMethodHandler } from './types.ts'
import { walletCreateSession } from './wallet_createSession.ts'
import { walletGetSession } from './wallet_getSession.ts'
import { walletInvokeMethod } from './wallet_invokeMethod.ts'
import { walletRevokeSession } from './wallet_revokeSession.ts'

/** The four methods of the multichain API; anything else is -32601. */
// biome-ignore lint/suspicious/noExplicitAny: each handler names its own hooks; the engine passes it exactly those
export const WALLET_HANDLERS: readonly WalletMethodHandler<any>[] = [
  walletCreateSession,
  walletGetSession,
  walletInvokeMethod,
  walletRevokeSession,
]

export { selectHooks, type WalletHooks, type WalletMethodHandler } from './types.ts'
