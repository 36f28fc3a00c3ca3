/**
 * signTransaction, signAllTransactions and signAndSendTransaction. Before asking the user: the account is the
 * session's, the bytes are a transaction, its fee payer is an account of this session, and the account is one of
 * its signers; the transaction is simulated for the console. signAndSendTransaction then checks the blockhash is
 * still valid (else says it expired: the dapp fetches a new one) and sends through the gateway with the wallet's
 * key. Nothing is signed when any of this fails.
 */
import { JsonRpcError } from '@metamask/rpc-errors'
import type { SolanaSigner } from '../../solana-keys.ts'
import { transactionContext } from './chain-context.ts'
import type { SolanaMethodContext } from './context.ts'
import { accountSigner, badParam, base64Bytes, inSession, paramsObject } from './params.ts'
import { readWireTransaction, signWireTransaction, type WireTransaction } from './wire-transaction.ts'

type Ctx = Pick<
  SolanaMethodContext,
  'scope' | 'sessionScope' | 'signerFor' | 'rpc' | 'approve' | 'assertStillAuthorized'
>

/** The limit of transactions in one signAllTransactions (each is shown to the user). */
const MAX_TRANSACTIONS = 20

function checkedTransaction(ctx: Ctx, signer: SolanaSigner, value: unknown, path: string): WireTransaction {
  const wire = readWireTransaction(base64Bytes(value, path), path)
  if (!inSession(ctx, wire.feePayer))
    throw badParam(path, `has fee payer ${wire.feePayer}, which is not an account of this session`)
  if (!wire.signers.includes(signer.address))
    throw badParam(path, `does not need a signature of ${signer.address} (its signers: ${wire.signers.join(', ')})`)
  return wire
}

async function askAndSign(
  ctx: Ctx,
  kind: 'signTransaction' | 'signAllTransactions' | 'signAndSendTransaction',
  signer: SolanaSigner,
  items: { base64: string; wire: WireTransaction }[],
): Promise<string[]> {
  const contexts = await Promise.all(items.map((i) => transactionContext(ctx, i.base64)))
  await ctx.approve(kind, {
    scope: ctx.scope,
    address: signer.address,
    transactions: items.map((i) => i.base64),
    contexts,
    ...(kind === 'signAndSendTransaction' ? { send: true } : {}),
  })
  await ctx.assertStillAuthorized(kind, signer.address)
  if (kind === 'signAndSendTransaction') await assertBlockhashValid(ctx, items[0]!.wire.recentBlockhash)
  return Promise.all(items.map((i) => signWireTransaction(i.wire, signer)))
}

/** The node's code for a refused preflight (-32002), with its error name, and what to do. */
async function assertBlockhashValid(ctx: Pick<SolanaMethodContext, 'rpc'>, blockhash: string): Promise<void> {
  const r = (await ctx.rpc('isBlockhashValid', [blockhash, { commitment: 'processed' }])) as { value?: boolean }
  if (r?.value === false)
    throw new JsonRpcError(
      -32002,
      `Transaction blockhash ${blockhash} has expired (BlockhashNotFound): fetch a recent blockhash, ` +
        'rebuild the transaction and ask again. Nothing was signed or sent.',
      { err: 'BlockhashNotFound' },
    )
}

export async function signTransaction(ctx: Ctx, params: unknown) {
  const p = paramsObject(params)
  const signer = accountSigner(ctx, p.account)
  const wire = checkedTransaction(ctx, signer, p.transaction, 'request.params.transaction')
  const [signedTransaction] = await askAndSign(ctx, 'signTransaction', signer, [
    { base64: p.transaction as string, wire },
  ])
  return { signedTransaction: signedTransaction! }
}

/**
 * `{ account, transactions: [base64…] }` (or items `{ transaction }`) → `{ signedTransactions: [base64…] }`, in
 * order; one approval shows every transaction.
 */
export async function signAllTransactions(ctx: Ctx, params: unknown) {
  const p = paramsObject(params)
  const signer = accountSigner(ctx, p.account)
  if (!Array.isArray(p.transactions) || p.transactions.length === 0 || p.transactions.length > MAX_TRANSACTIONS)
    throw badParam('request.params.transactions', `is not an array of 1 to ${MAX_TRANSACTIONS} transactions`)
  const items = p.transactions.map((t: unknown, i) => {
    const base64 = typeof t === 'object' && t !== null ? (t as { transaction?: unknown }).transaction : t
    const path = `request.params.transactions.${i}`
    return { base64: base64 as string, wire: checkedTransaction(ctx, signer, base64, path) }
  })
  return { signedTransactions: await askAndSign(ctx, 'signAllTransactions', signer, items) }
}

export async function signAndSendTransaction(ctx: Ctx, params: unknown) {
  const p = paramsObject(params)
  const signer = accountSigner(ctx, p.account)
  const wire = checkedTransaction(ctx, signer, p.transaction, 'request.params.transaction')
  const options = (typeof p.options === 'object' && p.options !== null ? p.options : {}) as Record<string, unknown>
  const [signed] = await askAndSign(ctx, 'signAndSendTransaction', signer, [{ base64: p.transaction as string, wire }])
  const config: Record<string, unknown> = { encoding: 'base64' }
  if (typeof options.commitment === 'string') config.preflightCommitment = options.commitment
  // MetaMask's client types skipPreflight as a string: "true" / true skip it.
  if (options.skipPreflight === true || options.skipPreflight === 'true') config.skipPreflight = true
  if (typeof options.maxRetries === 'number') config.maxRetries = options.maxRetries
  const signature = (await ctx.rpc('sendTransaction', [signed, config])) as string
  return { signature }
}
