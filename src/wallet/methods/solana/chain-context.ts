/**
 * What the console shows beside a Solana transaction, read through the gateway before the user decides
 * (simulation, mint decimals, fee: src/wallet/describe/solana). Stored with the approval; nothing of it is signed.
 * A read that fails leaves the context out: the approval is still shown, with the simulation "not run".
 */
import { prepareSolanaTransactionContext } from '../../describe/solana/index.ts'
import type { SolanaMethodContext } from './context.ts'

export async function transactionContext(ctx: Pick<SolanaMethodContext, 'rpc'>, base64: string): Promise<unknown> {
  return prepareSolanaTransactionContext(base64, { rpc: ctx.rpc }).catch(() => undefined)
}
