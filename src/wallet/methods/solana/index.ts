/** The methods of a `solana:<ref>` scope: all answered by the wallet after the user approves, never by a node. */
import type { SolanaMethod } from './context.ts'
import { signIn } from './sign-in.ts'
import { signMessage } from './sign-message.ts'
import { signAllTransactions, signAndSendTransaction, signTransaction } from './sign-transaction.ts'

export const SOLANA_LOCAL_METHODS: Readonly<Record<string, SolanaMethod>> = {
  signMessage,
  signTransaction,
  signAllTransactions,
  signAndSendTransaction,
  signIn,
}

export type { SolanaApprovalKind, SolanaApprovalRequest, SolanaMethodContext } from './context.ts'
