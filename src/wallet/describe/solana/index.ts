/**
 * Solana requests as the console shows them (issue 28): transactions (legacy and v0) decoded instruction by
 * instruction with amounts in SOL and token units, fees, and a simulation; messages as text or hex. Pure apart from
 * `prepareSolanaTransactionContext`, which reads the chain through the gateway before the request is shown.
 */
export type { SolanaSimulation, SolanaTransactionContext, TokenAccountState } from './context.ts'
export {
  type DecodedSolanaInstruction,
  type DecodedSolanaTransaction,
  decodeBase64,
  decodeSolanaTransaction,
  decodeSolanaTransactionBase64,
  type SolanaAccountRef,
  SolanaDecodeError,
} from './decode.ts'
export type { InstructionView } from './instruction-types.ts'
export { describeSolanaMessage, type SolanaMessageView } from './message.ts'
export { prepareSolanaTransactionContext, type SolanaChainReads } from './prepare.ts'
export {
  describeDecodedTransaction,
  describeSolanaTransaction,
  type SolanaDescribeEnv,
  type SolanaTransactionView,
} from './transaction.ts'
