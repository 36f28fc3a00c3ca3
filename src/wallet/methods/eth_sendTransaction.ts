/**
 * eth_sendTransaction `[tx]`: the wallet fills gas and fees, asks the user, fills the nonce, signs in process and
 * broadcasts with eth_sendRawTransaction through ChainAccess (only the signed transaction leaves the wallet).
 */
import { isHex, numberToHex, type Hex } from 'viem'
import { revertReason } from '../describe/revert.ts'
import type { ShownTransaction, TransactionContext } from '../describe/transaction.ts'
import { walletErrors } from '../errors.ts'
import { isPlainObject } from '../scopes.ts'
import type { LocalMethodContext } from './context.ts'
import { authorizedSigner, isAddressText, isPaddedQuantity } from './signer.ts'

/** The approval's transaction fields (the chain id comes from the scope), `to` checked as hex here. */
type TxFields = Omit<ShownTransaction, 'chainId' | 'to'> & { to?: Hex }

function parseTx(
  ctx: Pick<LocalMethodContext, 'sessionScope' | 'signerFor'>,
  chainId: number,
  params: unknown,
): TxFields {
  const tx = Array.isArray(params) ? params[0] : undefined
  if (!isPlainObject(tx))
    throw walletErrors.invalidParams([{ path: 'request.params.0', problem: 'is not of a type(s) object' }])
  const problems: { path: string; problem: string }[] = []
  const out: Record<string, unknown> = {}
  if (tx.to !== undefined && tx.to !== null) {
    if (!isAddressText(tx.to)) problems.push({ path: 'request.params.0.to', problem: 'is not a 20-byte address' })
    else out.to = tx.to
  }
  const data = tx.data ?? tx.input
  if (data !== undefined) {
    if (typeof data !== 'string' || !isHex(data))
      problems.push({ path: 'request.params.0.data', problem: 'is not hex data' })
    else out.data = data
  }
  for (const f of ['value', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'nonce', 'chainId'] as const) {
    const v = tx[f] ?? (f === 'gas' ? tx.gasLimit : undefined)
    if (v === undefined) continue
    if (!isPaddedQuantity(v)) problems.push({ path: `request.params.0.${f}`, problem: 'is not a hex quantity' })
    else out[f] = v
  }
  if (out.chainId !== undefined && BigInt(out.chainId as string) !== BigInt(chainId))
    problems.push({ path: 'request.params.0.chainId', problem: `does not match the scope's chain ${chainId}` })
  if (problems.length > 0) throw walletErrors.invalidParams(problems)
  if (tx.from === undefined)
    throw walletErrors.invalidParams([{ path: 'request.params.0.from', problem: 'is required' }])
  const signer = authorizedSigner(ctx, tx.from, 'request.params.0.from')
  return { ...(out as Omit<TxFields, 'from'>), from: signer.address.toLowerCase() }
}

/**
 * Fills gas and fees (EIP-1559 when the chain has a base fee), asks the user, re-checks the session, then nonce,
 * sign and broadcast.
 */
export async function sendTransaction(
  ctx: Pick<
    LocalMethodContext,
    | 'scope'
    | 'chainId'
    | 'sessionScope'
    | 'signerFor'
    | 'chainAccess'
    | 'approve'
    | 'assertStillAuthorized'
    | 'withNonceLock'
    | 'nonces'
  >,
  params: unknown,
): Promise<Hex> {
  const chainId = ctx.chainId
  if (chainId === undefined) throw walletErrors.unauthorized()
  const tx = parseTx(ctx, chainId, params)
  const signer = ctx.signerFor(tx.from)!
  const call = (method: string, p: unknown[]) => ctx.chainAccess.request(chainId, method, p)
  const gas =
    tx.gas ?? ((await call('eth_estimateGas', [{ from: tx.from, to: tx.to, value: tx.value, data: tx.data }])) as Hex)
  let fees: { gasPrice: Hex } | { maxFeePerGas: Hex; maxPriorityFeePerGas: Hex }
  const block = (await call('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas?: Hex } | null
  if (tx.gasPrice) fees = { gasPrice: tx.gasPrice }
  else {
    if (block?.baseFeePerGas) {
      const priority =
        tx.maxPriorityFeePerGas ?? ((await call('eth_maxPriorityFeePerGas', []).catch(() => '0x3b9aca00')) as Hex)
      const maxFee = tx.maxFeePerGas ?? numberToHex(BigInt(block.baseFeePerGas) * 2n + BigInt(priority))
      fees = { maxFeePerGas: maxFee, maxPriorityFeePerGas: BigInt(priority) > BigInt(maxFee) ? maxFee : priority }
    } else fees = { gasPrice: (await call('eth_gasPrice', [])) as Hex }
  }
  const shown = { ...tx, gas, ...fees, chainId: numberToHex(chainId) }
  // What the console shows beside the transaction (docs/wallet.md "The console"); none of it is signed.
  const context: TransactionContext = {
    ...(block?.baseFeePerGas ? { baseFeePerGas: block.baseFeePerGas } : {}),
    ...(tx.nonce === undefined
      ? {
          nextNonce: (await call('eth_getTransactionCount', [tx.from, 'pending']).catch(() => undefined)) as
            | Hex
            | undefined,
        }
      : {}),
    simulation: await call('eth_call', [
      { from: tx.from, to: tx.to, value: tx.value, data: tx.data, gas },
      'latest',
    ]).then(
      () => ({ ok: true as const }),
      (e: unknown) => ({ ok: false as const, reason: revertReason(e) }),
    ),
  }
  await ctx.approve('eth_sendTransaction', { scope: ctx.scope, transaction: shown, context })
  const key = `${chainId}:${tx.from}`
  return ctx.withNonceLock(key, async () => {
    await ctx.assertStillAuthorized('eth_sendTransaction', tx.from)
    let nonce: bigint
    if (tx.nonce !== undefined) nonce = BigInt(tx.nonce)
    else {
      const onChain = BigInt((await call('eth_getTransactionCount', [tx.from, 'pending'])) as Hex)
      const local = ctx.nonces.get(key) ?? 0n
      nonce = onChain > local ? onChain : local
    }
    const common = {
      chainId,
      to: tx.to,
      value: tx.value ? BigInt(tx.value) : 0n,
      data: tx.data,
      gas: BigInt(gas),
      nonce: Number(nonce),
    }
    const raw =
      'gasPrice' in fees
        ? await signer.signTransaction({ ...common, type: 'legacy', gasPrice: BigInt(fees.gasPrice) })
        : await signer.signTransaction({
            ...common,
            type: 'eip1559',
            maxFeePerGas: BigInt(fees.maxFeePerGas),
            maxPriorityFeePerGas: BigInt(fees.maxPriorityFeePerGas),
          })
    try {
      const hash = (await call('eth_sendRawTransaction', [raw])) as Hex
      ctx.nonces.set(key, nonce + 1n)
      return hash
    } catch (e) {
      ctx.nonces.delete(key)
      throw e
    }
  })
}
