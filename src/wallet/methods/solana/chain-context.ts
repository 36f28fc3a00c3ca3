/**
 * What the console shows beside a Solana transaction, read before the user decides: a simulation on the scope's
 * network (balance changes, error, logs). Stored with the approval; nothing of it is signed.
 */
import type { SolanaMethodContext } from './context.ts'

export async function transactionContext(ctx: Pick<SolanaMethodContext, 'rpc'>, base64: string): Promise<unknown> {
  const simulation = await ctx
    .rpc('simulateTransaction', [base64, { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: false }])
    .then(
      (r) => {
        const v = (r as { value?: { err?: unknown; logs?: string[]; unitsConsumed?: number } }).value ?? {}
        return { ok: v.err === null || v.err === undefined, err: v.err ?? null, logs: v.logs ?? [] }
      },
      (e: unknown) => ({ ok: false, err: (e as Error).message, logs: [] }),
    )
  return { simulation }
}
