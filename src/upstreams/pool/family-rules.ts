/**
 * What a pool asks its nodes, per chain family (src/shared/chain-family.ts): which chain a node is on, where its head
 * is, and whether it is healthy. Everything else in the pool (selection, retries, hedging, breakers) is the same for
 * every family; only these probes and their readings differ.
 *
 * - EVM: `eth_chainId` names the chain (`eip155:<id>`), the head is the latest block (and the `finalized` tag),
 *   pushed by `eth_subscribe` `newHeads` where the node has a WebSocket.
 * - Solana (https://solana.com/docs/rpc): `getGenesisHash` names the cluster (CAIP-2 `solana:` + its first 32
 *   characters, https://namespaces.chainagnostic.org/solana/caip2), the head is the slot at `processed` commitment
 *   (and at `finalized`), pushed by `slotSubscribe`; `getHealth` says whether the node is caught up.
 */
import type { EvmSubscriptionKindName } from '../../methods/entry.ts'
import { hexToNumber, isHex } from '../../shared/hex.ts'
import type { ChainFamily } from '../../shared/chain-family.ts'
import type { BlockHead } from './heads.ts'

export interface FamilyRules {
  readonly family: ChainFamily
  /** One request body asking a node which chain it is on. */
  readonly identityProbe: string
  /** The CAIP-2 id in an answer to identityProbe, or undefined when it holds none. */
  identityOf(body: Buffer): string | undefined
  /** How an id reads in messages (EVM: `31337 (0x7a69)`). */
  describe(caip2: string): string
  /** The config key an operator fixes when a node is on another chain. */
  readonly identityKey: string
  /** The head poll: id 1 asks the latest head, id 2 (with `withFinalized`) the finalized one. */
  headProbe(withFinalized: boolean): string
  /** A head from the answer to one of headProbe's calls (`{ result }`). */
  headOf(answer: unknown): BlockHead | undefined
  /** The finalized height from the answer to headProbe's id 2. */
  finalizedOf(answer: unknown): number | undefined
  /** The WebSocket subscription that pushes heads, and the head in one of its notifications. */
  readonly headSubscribe: { method: string; params: unknown[] }
  headOfNotification(result: unknown): BlockHead | undefined
  /** A cheap call that any healthy node answers (/healthz, subscription heartbeats). */
  readonly liveness: { method: string; params: unknown[] }
}

const body = (method: string, params: unknown[] = [], id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params })

const resultOf = (answer: unknown): unknown => (answer as { result?: unknown } | undefined)?.result

const EVM_HEAD = body('eth_getBlockByNumber', ['latest', false])
const EVM_HEAD_AND_FINALIZED = `[${EVM_HEAD},${body('eth_getBlockByNumber', ['finalized', false], 2)}]`

const evmBlockOf = (r: unknown): BlockHead | undefined => {
  const b = r as { number?: unknown; hash?: unknown; parentHash?: unknown } | null | undefined
  if (!b || typeof b.number !== 'string' || typeof b.hash !== 'string') return undefined
  const number = Number.parseInt(b.number, 16)
  return Number.isSafeInteger(number)
    ? { number, hash: b.hash, ...(typeof b.parentHash === 'string' ? { parentHash: b.parentHash } : {}) }
    : undefined
}

/** The chain id in an `eth_chainId` answer (`{"result":"0x…"}`), or undefined when it holds none. */
export function evmChainIdOf(answer: Buffer): number | undefined {
  try {
    const result = (JSON.parse(answer.toString()) as { result?: unknown }).result
    // At most 16 hex digits; hexToNumber throws beyond 2^53-1 (caught: no chain id).
    if (!isHex(result) || result.length < 3 || result.length > 18) return undefined
    return hexToNumber(result)
  } catch {
    return undefined
  }
}

export const EVM_RULES: FamilyRules = {
  family: 'evm',
  identityProbe: body('eth_chainId'),
  identityOf(answer) {
    const id = evmChainIdOf(answer)
    return id === undefined ? undefined : `eip155:${id}`
  },
  describe(caip2) {
    const id = Number(caip2.slice('eip155:'.length))
    return `${id} (0x${id.toString(16)})`
  },
  identityKey: 'networks[].chainId',
  headProbe: (withFinalized) => (withFinalized ? EVM_HEAD_AND_FINALIZED : EVM_HEAD),
  headOf: (answer) => evmBlockOf(resultOf(answer)),
  finalizedOf: (answer) => evmBlockOf(resultOf(answer))?.number,
  // A kind of the catalog's table (src/methods/entry.ts): renaming it there fails to compile here.
  headSubscribe: { method: 'eth_subscribe', params: ['newHeads' satisfies EvmSubscriptionKindName] },
  headOfNotification: evmBlockOf,
  liveness: { method: 'eth_chainId', params: [] },
}

const BASE58_HASH = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/
const slotOf = (r: unknown): number | undefined =>
  Number.isSafeInteger(r) && (r as number) >= 0 ? (r as number) : undefined
/** A slot as a head: Solana has no block hash to hand for a slot, so the slot number stands for it. */
const slotHead = (slot: number | undefined): BlockHead | undefined =>
  slot === undefined ? undefined : { number: slot, hash: String(slot) }

// Processed, the slot slotSubscribe pushes: polled and pushed heads must read one commitment, or each poll would step
// the tip back a slot or two (and look like a replaced chain).
const SOLANA_HEAD = body('getSlot', [{ commitment: 'processed' }])
const SOLANA_HEAD_AND_FINALIZED = `[${SOLANA_HEAD},${body('getSlot', [{ commitment: 'finalized' }], 2)}]`

/** `solana:` and the first 32 characters of a base58 genesis hash (CAIP-2 for Solana). */
export function solanaChainOf(genesisHash: string): string {
  return `solana:${genesisHash.slice(0, 32)}`
}

export const SOLANA_RULES: FamilyRules = {
  family: 'solana',
  identityProbe: body('getGenesisHash'),
  identityOf(answer) {
    try {
      const hash = (JSON.parse(answer.toString()) as { result?: unknown }).result
      return typeof hash === 'string' && BASE58_HASH.test(hash) ? solanaChainOf(hash) : undefined
    } catch {
      return undefined
    }
  },
  describe: (caip2) => caip2,
  identityKey: 'networks[].chain',
  headProbe: (withFinalized) => (withFinalized ? SOLANA_HEAD_AND_FINALIZED : SOLANA_HEAD),
  headOf: (answer) => slotHead(slotOf(resultOf(answer))),
  finalizedOf: (answer) => slotOf(resultOf(answer)),
  headSubscribe: { method: 'slotSubscribe', params: [] },
  headOfNotification: (r) => slotHead(slotOf((r as { slot?: unknown } | null | undefined)?.slot)),
  liveness: { method: 'getHealth', params: [] },
}

export const FAMILY_RULES: Readonly<Record<ChainFamily, FamilyRules>> = { evm: EVM_RULES, solana: SOLANA_RULES }

/** A chain id as the pool's messages name it: the EVM's number (`1`), otherwise the CAIP-2 id. */
export const chainLabel = (pool: { rules: FamilyRules }, caip2: string): string =>
  pool.rules.family === 'evm' ? caip2.slice(caip2.indexOf(':') + 1) : caip2
