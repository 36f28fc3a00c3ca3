/**
 * The embedded Solana devnet's RPC parameters, checked as Agave checks them: its -32602 texts for bad parameters
 * (serde's wording), -32016 below `minContextSlot`; and the `{ context: { slot, apiVersion }, value }` answer.
 */
import type { SolanaChain } from './chain.ts'
import { invalidParams, parsePubkey, RpcError, typeName } from './codec.ts'
import type { Commitment } from './slot-clock.ts'
import type { TransactionEncoding } from './ui-transaction.ts'

/** The Agave release whose RPC this devnet answers like (getVersion, `context.apiVersion`). */
export const SOLANA_CORE_VERSION = '3.0.0'

export interface RpcContext {
  chain: SolanaChain
  /** Transactions that arrived (signatureSubscribe's enableReceivedNotification). */
  onReceived?(signature: string): void
  /** The RPC's own address, for getClusterNodes. */
  rpcAddress?: string
}

export type Params = unknown[]
export type Handler = (params: Params, ctx: RpcContext) => unknown

/** serde's refusal of an unknown enum value. */
export function unknownVariant(value: unknown, variants: string[]): RpcError {
  const expected = variants.map((v) => `\`${v}\``).join(', ')
  return invalidParams(`Invalid params: unknown variant \`${String(value)}\`, expected one of ${expected}.`)
}

export function asObject(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected struct ${what}.`)
  return value as Record<string, unknown>
}

export function required(params: Params, index: number, expected: string): unknown {
  if (params.length <= index || params[index] === undefined)
    throw invalidParams(`Invalid params: invalid length ${params.length}, expected ${expected}.`)
  return params[index]
}

export function parseU64(value: unknown, what = 'u64'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected ${what}.`)
  return value
}

export function optionalU64(value: unknown): number | undefined {
  return value === undefined || value === null ? undefined : parseU64(value)
}

export function optionalBool(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'boolean')
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected a boolean.`)
  return value
}

const COMMITMENTS: Record<string, Commitment> = {
  processed: 'processed',
  confirmed: 'confirmed',
  finalized: 'finalized',
  // Names older clients still send (solana-sdk's CommitmentLevel, deprecated).
  recent: 'processed',
  single: 'confirmed',
  singleGossip: 'confirmed',
  root: 'finalized',
  max: 'finalized',
}

export function parseCommitment(value: unknown): Commitment {
  if (value === undefined || value === null) return 'finalized'
  const commitment = typeof value === 'string' ? COMMITMENTS[value] : undefined
  if (!commitment) throw unknownVariant(value, ['processed', 'confirmed', 'finalized'])
  return commitment
}

/** The slot answered at `config.commitment`, refusing (-32016) a `minContextSlot` not reached yet. */
export function contextSlot(chain: SolanaChain, config: Record<string, unknown>): number {
  const slot = chain.clock.commitmentSlot(parseCommitment(config.commitment))
  const min = optionalU64(config.minContextSlot)
  if (min !== undefined && min > slot)
    throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot })
  return slot
}

export const withContext = (slot: number, value: unknown) => ({
  context: { apiVersion: SOLANA_CORE_VERSION, slot },
  value,
})

export function atLeastConfirmed(config: Record<string, unknown>): Commitment {
  const commitment = parseCommitment(config.commitment)
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`')
  return commitment
}

export function parseTransactionEncoding(value: unknown): TransactionEncoding {
  if (value === undefined || value === null) return 'json'
  if (value === 'json' || value === 'jsonParsed' || value === 'base58' || value === 'base64' || value === 'binary')
    return value
  throw invalidParams(
    `Invalid params: unknown variant \`${String(value)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, ` +
      '`json`, `jsonParsed`.',
  )
}

export function parseMaxVersion(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined
  const version = parseU64(value, 'u8')
  if (version > 0)
    throw new RpcError(-32015, `Transaction version (${version}) is not supported by the requesting client.`)
  return version
}

/**
 * getBlock's and getTransaction's second parameter: an encoding name, or a config object (`RpcBlockConfig`,
 * `RpcTransactionConfig`) with the encoding, a commitment of at least `confirmed` and the highest transaction version.
 */
export function transactionReadConfig(value: unknown, type: string) {
  const config = asObject(typeof value === 'string' ? { encoding: value } : value, type)
  const encoding = parseTransactionEncoding(config.encoding)
  const commitment = atLeastConfirmed(config)
  const maxVersion = parseMaxVersion(config.maxSupportedTransactionVersion)
  return { config, encoding, commitment, maxVersion }
}

export function pubkeyList(value: unknown, max: number): string[] {
  if (!Array.isArray(value))
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected a sequence.`)
  if (value.length > max) throw invalidParams(`Too many inputs provided; max ${max}`)
  return value.map((v) => parsePubkey(v))
}
