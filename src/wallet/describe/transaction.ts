/** An eth_sendTransaction approval as a person reads it: network, parties, amount and fees in ETH, decoded call. */
import type { Hex } from 'viem'
import { isPlainObject } from '../scopes.ts'
import { decodeCalldata } from './calldata.ts'
import { eth, gwei, toBigIntOrUndefined } from './format.ts'
import type { DescribeEnv, Row, Simulation } from './types.ts'
import { accountLabel, networkOf } from './types.ts'

export interface ShownTransaction {
  from: string
  to?: string
  value?: Hex
  data?: Hex
  gas?: Hex
  gasPrice?: Hex
  maxFeePerGas?: Hex
  maxPriorityFeePerGas?: Hex
  nonce?: Hex
  chainId?: Hex
}

/** What the wallet learned from the chain while preparing the approval (src/wallet/methods/eth_sendTransaction.ts). */
export interface TransactionContext {
  baseFeePerGas?: Hex
  /** The nonce the transaction will get if nothing else is sent first. */
  nextNonce?: Hex
  simulation?: Simulation
}

export interface TransactionView {
  network: string
  chainId?: number
  rows: Row[]
  call?: ReturnType<typeof decodeCalldata>
  simulation?: Simulation
  warnings: string[]
}

export function describeTransaction(
  shown: ShownTransaction,
  ctx: TransactionContext | undefined,
  chainId: number | undefined,
  env: DescribeEnv,
): TransactionView {
  // Stored JSON: treat every field as untrusted in shape.
  const tx = (isPlainObject(shown) ? shown : {}) as ShownTransaction
  const context = (isPlainObject(ctx) ? ctx : undefined) as TransactionContext | undefined
  const warnings: string[] = []
  const value = toBigIntOrUndefined(tx.value) ?? 0n
  const gas = toBigIntOrUndefined(tx.gas)
  const rows: Row[] = [
    { label: 'Network', value: networkOf(chainId, env) },
    { label: 'From', value: String(tx.from), detail: accountLabel(tx.from, env) },
    tx.to
      ? { label: 'To', value: String(tx.to), detail: accountLabel(tx.to, env) }
      : { label: 'To', value: 'new contract (deployment)' },
    { label: 'Amount', value: eth(value) },
  ]
  if (gas !== undefined) {
    const maxFee = toBigIntOrUndefined(tx.maxFeePerGas)
    const priority = toBigIntOrUndefined(tx.maxPriorityFeePerGas) ?? 0n
    const base = toBigIntOrUndefined(context?.baseFeePerGas)
    const legacy = toBigIntOrUndefined(tx.gasPrice)
    if (legacy !== undefined) {
      rows.push({ label: 'Network fee', value: eth(gas * legacy), detail: `${gas} gas × ${gwei(legacy)}` })
    } else if (maxFee !== undefined) {
      if (base !== undefined) {
        const perGas = base + priority < maxFee ? base + priority : maxFee
        rows.push({
          label: 'Estimated fee',
          value: eth(gas * perGas),
          detail: `${gas} gas × ${gwei(perGas)} (base ${gwei(base)} + tip ${gwei(priority)})`,
        })
      }
      rows.push({ label: 'Max fee', value: eth(gas * maxFee), detail: `${gas} gas × at most ${gwei(maxFee)}` })
      rows.push({ label: 'Total at most', value: eth(value + gas * maxFee) })
    }
  }
  const nonce = toBigIntOrUndefined(tx.nonce) ?? toBigIntOrUndefined(context?.nextNonce)
  if (nonce !== undefined)
    rows.push({ label: 'Nonce', value: String(nonce), detail: tx.nonce ? 'set by the dapp' : 'assigned when sent' })
  const call = typeof tx.data === 'string' ? decodeCalldata(tx.data) : undefined
  if (call) warnings.push(...call.warnings)
  if (context?.simulation && !context.simulation.ok)
    warnings.push(
      `The simulation reverted: ${String(context.simulation.reason)}. Sending it would most likely fail and still ` +
        `cost the fee.`,
    )
  return {
    network: networkOf(chainId, env),
    ...(chainId !== undefined ? { chainId } : {}),
    rows,
    ...(call ? { call } : {}),
    ...(context?.simulation ? { simulation: context.simulation } : {}),
    warnings,
  }
}
