/**
 * Which calls the gateway may answer from its cache or share between clients, and how their finality is judged
 * (the eRPC and web3-proxy rules: https://docs.erpc.cloud/config/database/evm-json-rpc-cache, never key on a tag,
 * key unfinalized data on its block hash).
 */
export type CacheRule =
  /** The same answer for the network's life: eth_chainId, net_version. */
  | { kind: 'static' }
  /** Keyed by a block hash: the block's content never changes; an empty answer (unknown hash) is not kept. */
  | { kind: 'hash' }
  /** Keyed by a transaction hash: immutable once its block is finalized (the answer names the block). */
  | { kind: 'tx' }
  /**
   * Reads at a block given by the parameter at `at`: a number, `earliest`, or an EIP-1898 object; tags are never
   * cached.
   */
  | { kind: 'block'; at: number; blockData: boolean }
  /** eth_blockNumber: one answer per served head. */
  | { kind: 'head' }

const block = (at: number, blockData = false): CacheRule => ({ kind: 'block', at, blockData })

/** Methods whose answers may be cached (and deduplicated). */
export const CACHE_RULES: ReadonlyMap<string, CacheRule> = new Map<string, CacheRule>([
  ['eth_chainId', { kind: 'static' }],
  ['net_version', { kind: 'static' }],
  ['eth_blockNumber', { kind: 'head' }],
  ['eth_getBlockByHash', { kind: 'hash' }],
  ['eth_getBlockTransactionCountByHash', { kind: 'hash' }],
  ['eth_getTransactionByBlockHashAndIndex', { kind: 'hash' }],
  ['eth_getUncleByBlockHashAndIndex', { kind: 'hash' }],
  ['eth_getUncleCountByBlockHash', { kind: 'hash' }],
  ['eth_getTransactionByHash', { kind: 'tx' }],
  ['eth_getTransactionReceipt', { kind: 'tx' }],
  // blockData: the answer is the block itself (null above the tip), not state at it.
  ['eth_getBlockByNumber', block(0, true)],
  ['eth_getBlockTransactionCountByNumber', block(0, true)],
  ['eth_getTransactionByBlockNumberAndIndex', block(0, true)],
  ['eth_getUncleByBlockNumberAndIndex', block(0, true)],
  ['eth_getUncleCountByBlockNumber', block(0, true)],
  ['eth_getBlockReceipts', block(0, true)],
  ['eth_getBalance', block(1)],
  ['eth_getCode', block(1)],
  ['eth_getTransactionCount', block(1)],
  ['eth_getStorageAt', block(2)],
  ['eth_call', block(1)],
  ['eth_getProof', block(2)],
])

/**
 * Reads that are not cached but may share one upstream call when identical ones are in flight. Anything not
 * listed here or above (eth_sendRawTransaction, filters, devnet methods, …) is never shared.
 */
export const SHARED_READS: ReadonlySet<string> = new Set([
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_blobBaseFee',
  'eth_feeHistory',
  'eth_estimateGas',
  'eth_createAccessList',
  'eth_syncing',
  'eth_getLogs',
  'net_listening',
  'net_peerCount',
  'web3_clientVersion',
  'eth_protocolVersion',
])

/**
 * Calls that are never shared (each answers its own filter's state) but change nothing other calls would read:
 * a dapp polling its filter does not end the sharing of identical reads in flight.
 */
export const UNSHARED_READS: ReadonlySet<string> = new Set([
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
])

/** Read-only methods: a call of any other method may change what the node answers next. */
export const isRead = (method: string): boolean => CACHE_RULES.has(method) || SHARED_READS.has(method)

/** Devnet methods that only add blocks (history stays as it was). */
const MINES: ReadonlySet<string> = new Set([
  'evm_mine',
  'evm_mine_detailed',
  'anvil_mine',
  'anvil_mine_detailed',
  'hardhat_mine',
])

/**
 * Devnet methods (evm_*, anvil_*, hardhat_*) other than mining may move a chain back in time or rewrite its state
 * (a snapshot revert, a state load, a balance set): after one, nothing the gateway remembered of that network
 * holds, finalized blocks and block-number floors included. Only on devnets, where these are served.
 */
export const isRewind = (method: string): boolean =>
  (method.startsWith('evm_') || method.startsWith('anvil_') || method.startsWith('hardhat_')) && !MINES.has(method)

const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/i
const HASH = /^0x[0-9a-f]{64}$/i

/** What a block parameter names: a number, a hash (EIP-1898), or a tag that is not cached. */
export type BlockRef = { number: number } | { hash: string } | { tag: string }

export function blockRefOf(param: unknown): BlockRef {
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

const BLOCK_NUMBER = /"blockNumber"\s*:\s*"0x([0-9a-fA-F]+)"/
const BLOCK_HASH = /"blockHash"\s*:\s*"(0x[0-9a-fA-F]{64})"/

/** The block a transaction or receipt answer names (its first blockNumber/blockHash); undefined while pending. */
export function minedAt(result: string): { number: number; hash: string } | undefined {
  const n = BLOCK_NUMBER.exec(result)
  const h = BLOCK_HASH.exec(result)
  return n && h ? { number: Number.parseInt(n[1]!, 16), hash: h[1]!.toLowerCase() } : undefined
}
