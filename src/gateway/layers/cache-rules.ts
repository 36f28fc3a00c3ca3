/**
 * Which calls the gateway may answer from its cache or share between clients, and how their finality is judged
 * (the eRPC and web3-proxy rules: https://docs.erpc.cloud/config/database/evm-json-rpc-cache, never key on a tag,
 * key unfinalized data on its block hash; Solana: by the commitment asked, only `finalized` is kept). The rules per
 * method are the method catalogs' (src/methods/catalog.ts), by name over every family: a network only gets its own
 * family's methods this far (its served set).
 */
import { ALL_METHODS, anyMethodsWhere, type CacheRule } from '../../methods/catalog.ts'

export type { CacheRule }

/** Methods whose answers may be cached (and deduplicated). */
export const CACHE_RULES: ReadonlyMap<string, CacheRule> = new Map(
  [...ALL_METHODS].flatMap(([m, e]) => (typeof e.cache === 'object' ? [[m, e.cache] as const] : [])),
)

/**
 * Reads that are not cached but may share one upstream call when identical ones are in flight. Anything not
 * listed here or above (eth_sendRawTransaction, filters, devnet methods, …) is never shared.
 */
export const SHARED_READS: ReadonlySet<string> = new Set(anyMethodsWhere((e) => e.cache === 'shared'))

/**
 * Calls that are never shared (each answers its own filter's state) but change nothing other calls would read:
 * a dapp polling its filter does not end the sharing of identical reads in flight.
 */
export const UNSHARED_READS: ReadonlySet<string> = new Set(anyMethodsWhere((e) => e.cache === 'unshared'))

/** Read-only methods: a call of any other method may change what the node answers next. */
export const isRead = (method: string): boolean => CACHE_RULES.has(method) || SHARED_READS.has(method)

/** Devnet methods that only add blocks (history stays as it was). */
const MINES: ReadonlySet<string> = new Set(anyMethodsWhere((e) => e.mines === true))

/**
 * Devnet methods (evm_*, anvil_*, hardhat_*) other than mining may move a chain back in time or rewrite its state
 * (a snapshot revert, a state load, a balance set): after one, nothing the gateway remembered of that network
 * holds, finalized blocks and block-number floors included. Only on devnets, where these are served.
 */
export const isRewind = (method: string): boolean =>
  (method.startsWith('evm_') || method.startsWith('anvil_') || method.startsWith('hardhat_')) && !MINES.has(method)

// Regex, not viem's isHex (src/shared/hex.ts): checked on every call, on the measured per-request path.
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/i
const HASH = /^0x[0-9a-f]{64}$/i

/** What a block parameter names: a number, a hash (EIP-1898), or a tag that is not cached. */
export type BlockRef = { number: number } | { hash: string } | { tag: string }

/** The most common parameter, without a regex or an object per call (a BlockRef is only read). */
const LATEST: BlockRef = Object.freeze({ tag: 'latest' })

export function blockRefOf(param: unknown): BlockRef {
  if (param === 'latest') return LATEST
  if (typeof param === 'string') {
    // A 32-byte hash where a block is named (eth_getBlockReceipts takes one): not a number.
    if (HASH.test(param)) return { hash: param.toLowerCase() }
    if (QUANTITY.test(param)) {
      const n = Number.parseInt(param, 16)
      // Beyond 2^53 no chain has such a block: the node answers it, nothing is kept.
      return Number.isSafeInteger(n) ? { number: n } : { tag: param }
    }
    if (param === 'earliest') return { number: 0 }
    return { tag: param }
  }
  if (param !== null && typeof param === 'object') {
    const o = param as { blockNumber?: unknown; blockHash?: unknown; requireCanonical?: unknown }
    if (typeof o.blockHash === 'string' && HASH.test(o.blockHash) && o.requireCanonical !== true)
      return { hash: o.blockHash.toLowerCase() }
    if (typeof o.blockNumber === 'string' && QUANTITY.test(o.blockNumber))
      return { number: Number.parseInt(o.blockNumber, 16) }
  }
  // Absent means latest (eth_call, eth_getBalance, …).
  return { tag: 'latest' }
}

/**
 * Whether a Solana call under a `finalized` rule asks for finalized data: its config's `commitment` is `finalized`,
 * or absent (the node's default, https://solana.com/docs/rpc#configuring-state-commitment).
 */
export function asksFinalized(rule: CacheRule & { kind: 'finalized' }, params: unknown): boolean {
  const config: unknown = Array.isArray(params) ? params[rule.config] : undefined
  if (config === undefined || config === null) return true
  if (typeof config !== 'object' || Array.isArray(config)) return false
  const commitment = (config as { commitment?: unknown }).commitment
  return commitment === undefined || commitment === null || commitment === 'finalized'
}

const BLOCK_NUMBER = /"blockNumber"\s*:\s*"0x([0-9a-fA-F]+)"/
const BLOCK_HASH = /"blockHash"\s*:\s*"(0x[0-9a-fA-F]{64})"/

/** The block a transaction or receipt answer names (its first blockNumber/blockHash); undefined while pending. */
export function minedAt(result: string): { number: number; hash: string } | undefined {
  const n = BLOCK_NUMBER.exec(result)
  const h = BLOCK_HASH.exec(result)
  return n && h ? { number: Number.parseInt(n[1]!, 16), hash: h[1]!.toLowerCase() } : undefined
}
