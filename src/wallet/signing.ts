/**
 * The three signing methods. Each checks the account is in the session's scope (4100 otherwise), asks the user
 * (approval kinds personal_sign / eth_signTypedData_v4 / eth_sendTransaction), then signs in process; only the
 * signed transaction leaves the wallet, through ChainAccess (`eth_sendRawTransaction`).
 */
import { hexToString, isHex, numberToHex, type Hex } from 'viem'
import type { HDAccount } from 'viem/accounts'
import { walletErrors } from './errors.ts'
import type { ChainAccess } from './ports.ts'
import { addressOf, isPlainObject, type SessionScope } from './scopes.ts'

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/ // leading zeros tolerated: some dapps pad quantities

export interface SigningContext {
  scope: string
  chainId: number
  sessionScope: SessionScope
  /** The wallet's signer for an address it still holds, else undefined. */
  signerFor(address: string): HDAccount | undefined
  chainAccess: ChainAccess
  approve(kind: 'personal_sign' | 'eth_signTypedData_v4' | 'eth_sendTransaction', request: unknown): Promise<unknown>
  /** Serializes nonce assignment per chain and address. */
  withNonceLock<T>(key: string, fn: () => Promise<T>): Promise<T>
  nonces: Map<string, bigint>
}

function authorizedSigner(ctx: SigningContext, address: unknown, path: string): HDAccount {
  if (typeof address !== 'string' || !ADDRESS.test(address))
    throw walletErrors.invalidParams([{ path, problem: 'is not a 0x-prefixed 20-byte address' }])
  const a = address.toLowerCase()
  if (!ctx.sessionScope.accounts.some((acc) => addressOf(acc) === a)) throw walletErrors.unauthorized()
  const signer = ctx.signerFor(a)
  if (!signer) throw walletErrors.unauthorized()
  return signer
}

export async function personalSign(ctx: SigningContext, params: unknown): Promise<Hex> {
  if (!Array.isArray(params) || params.length < 2)
    throw walletErrors.invalidParams([{ path: 'request.params', problem: 'must be [message, address]' }])
  const [message, address] = params
  if (typeof message !== 'string') throw walletErrors.invalidParams([{ path: 'request.params.0', problem: 'is not of a type(s) string' }])
  const signer = authorizedSigner(ctx, address, 'request.params.1')
  const hex = isHex(message)
  let text: string | undefined = message
  if (hex) {
    try {
      text = hexToString(message)
      if (/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text)) text = undefined
    } catch {
      text = undefined
    }
  }
  await ctx.approve('personal_sign', { scope: ctx.scope, address: signer.address.toLowerCase(), message: text, messageHex: hex ? message : undefined })
  return signer.signMessage({ message: hex ? { raw: message } : message })
}

export async function signTypedDataV4(ctx: SigningContext, params: unknown): Promise<Hex> {
  if (!Array.isArray(params) || params.length < 2)
    throw walletErrors.invalidParams([{ path: 'request.params', problem: 'must be [address, typedData]' }])
  const signer = authorizedSigner(ctx, params[0], 'request.params.0')
  let data: unknown = params[1]
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data)
    } catch {
      throw walletErrors.invalidParams([{ path: 'request.params.1', problem: 'is not valid JSON typed data' }])
    }
  }
  if (!isPlainObject(data) || !isPlainObject(data.types) || typeof data.primaryType !== 'string' || !isPlainObject(data.message))
    throw walletErrors.invalidParams([{ path: 'request.params.1', problem: 'must have types, primaryType, domain and message' }])
  const domain = isPlainObject(data.domain) ? data.domain : {}
  const toBig = (v: unknown): bigint | undefined => {
    try {
      return typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' ? BigInt(v) : undefined
    } catch {
      return undefined
    }
  }
  if (domain.chainId !== undefined && toBig(domain.chainId) !== BigInt(ctx.chainId))
    throw walletErrors.invalidParams([{ path: 'request.params.1.domain.chainId', problem: `does not match the scope's chain ${ctx.chainId}` }])
  const { EIP712Domain: _ignored, ...types } = data.types as Record<string, unknown>
  await ctx.approve('eth_signTypedData_v4', { scope: ctx.scope, address: signer.address.toLowerCase(), typedData: data })
  try {
    return await signer.signTypedData({ domain, types, primaryType: data.primaryType, message: data.message } as never)
  } catch (e) {
    throw walletErrors.invalidParams([{ path: 'request.params.1', problem: `cannot be signed: ${(e as Error).message.split('\n')[0]}` }])
  }
}

interface TxFields {
  from: string
  to?: Hex
  value?: Hex
  data?: Hex
  gas?: Hex
  gasPrice?: Hex
  maxFeePerGas?: Hex
  maxPriorityFeePerGas?: Hex
  nonce?: Hex
}

function parseTx(ctx: SigningContext, params: unknown): TxFields {
  const tx = Array.isArray(params) ? params[0] : undefined
  if (!isPlainObject(tx)) throw walletErrors.invalidParams([{ path: 'request.params.0', problem: 'is not of a type(s) object' }])
  const problems: { path: string; problem: string }[] = []
  const out: Record<string, unknown> = {}
  if (tx.to !== undefined && tx.to !== null) {
    if (typeof tx.to !== 'string' || !ADDRESS.test(tx.to)) problems.push({ path: 'request.params.0.to', problem: 'is not a 20-byte address' })
    else out.to = tx.to
  }
  const data = tx.data ?? tx.input
  if (data !== undefined) {
    if (typeof data !== 'string' || !isHex(data)) problems.push({ path: 'request.params.0.data', problem: 'is not hex data' })
    else out.data = data
  }
  for (const f of ['value', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'nonce', 'chainId'] as const) {
    const v = tx[f] ?? (f === 'gas' ? tx.gasLimit : undefined)
    if (v === undefined) continue
    if (typeof v !== 'string' || !QUANTITY.test(v)) problems.push({ path: `request.params.0.${f}`, problem: 'is not a hex quantity' })
    else out[f] = v
  }
  if (out.chainId !== undefined && BigInt(out.chainId as string) !== BigInt(ctx.chainId))
    problems.push({ path: 'request.params.0.chainId', problem: `does not match the scope's chain ${ctx.chainId}` })
  if (problems.length > 0) throw walletErrors.invalidParams(problems)
  if (tx.from === undefined) throw walletErrors.invalidParams([{ path: 'request.params.0.from', problem: 'is required' }])
  const signer = authorizedSigner(ctx, tx.from, 'request.params.0.from')
  return { ...(out as Omit<TxFields, 'from'>), from: signer.address.toLowerCase() }
}

/** Fills gas and fees (EIP-1559 when the chain has a base fee), asks the user, then nonce, sign and broadcast. */
export async function sendTransaction(ctx: SigningContext, params: unknown): Promise<Hex> {
  const tx = parseTx(ctx, params)
  const signer = ctx.signerFor(tx.from)!
  const call = (method: string, p: unknown[]) => ctx.chainAccess.request(ctx.chainId, method, p)
  const gas =
    tx.gas ??
    ((await call('eth_estimateGas', [{ from: tx.from, to: tx.to, value: tx.value, data: tx.data }])) as Hex)
  let fees: { gasPrice: Hex } | { maxFeePerGas: Hex; maxPriorityFeePerGas: Hex }
  if (tx.gasPrice) fees = { gasPrice: tx.gasPrice }
  else {
    const block = (await call('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas?: Hex } | null
    if (block?.baseFeePerGas) {
      const priority = tx.maxPriorityFeePerGas ?? ((await call('eth_maxPriorityFeePerGas', []).catch(() => '0x3b9aca00')) as Hex)
      const maxFee = tx.maxFeePerGas ?? numberToHex(BigInt(block.baseFeePerGas) * 2n + BigInt(priority))
      fees = { maxFeePerGas: maxFee, maxPriorityFeePerGas: BigInt(priority) > BigInt(maxFee) ? maxFee : priority }
    } else fees = { gasPrice: (await call('eth_gasPrice', [])) as Hex }
  }
  const shown = { ...tx, gas, ...fees, chainId: numberToHex(ctx.chainId) }
  await ctx.approve('eth_sendTransaction', { scope: ctx.scope, transaction: shown })
  const key = `${ctx.chainId}:${tx.from}`
  return ctx.withNonceLock(key, async () => {
    let nonce: bigint
    if (tx.nonce !== undefined) nonce = BigInt(tx.nonce)
    else {
      const onChain = BigInt((await call('eth_getTransactionCount', [tx.from, 'pending'])) as Hex)
      const local = ctx.nonces.get(key) ?? 0n
      nonce = onChain > local ? onChain : local
    }
    const common = { chainId: ctx.chainId, to: tx.to, value: tx.value ? BigInt(tx.value) : 0n, data: tx.data, gas: BigInt(gas), nonce: Number(nonce) }
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
