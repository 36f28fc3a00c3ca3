/**
 * The wallet's methods of a `solana:<ref>` scope: answered by the wallet after the user approves, never by a node
 * (exactly the Solana catalog's wallet-answered methods: ../local-methods.ts).
 */
import type { SolanaMethod } from './context.ts'
import { localMethodsFor } from '../local-methods.ts'
import { signIn } from './sign-in.ts'
import { signMessage } from './sign-message.ts'
import { signAllTransactions, signAndSendTransaction, signTransaction } from './sign-transaction.ts'

export const SOLANA_LOCAL_METHODS: Readonly<Record<string, SolanaMethod>> = localMethodsFor('solana', {
  signMessage,
  signTransaction,
  signAllTransactions,
  signAndSendTransaction,
  signIn,
})

export type { SolanaApprovalKind, SolanaApprovalRequest, SolanaMethodContext } from './context.ts'
