/**
 * Which addresses a call names, for the contract-address allowlist (Infura: "Any requests which query addresses
 * that aren't in the allowlist are rejected",
 * https://docs.metamask.io/developer-tools/dashboard/how-to/secure-an-api/use-an-allowlist/ ).
 * Infura documents seven checked methods; here every served method that names an address is checked, and the
 * list is closed: a method that is neither known to name no address nor checked below is refused for a key with
 * an address allowlist, so a method added to a network later cannot slip past it. docs/key-security.md lists the
 * three groups; keep it in step with this file.
 */
import { parseTransaction, type Hex } from 'viem'

/** Served methods that name no address (block, transaction and filter-id reads, chain facts). */
export const ADDRESS_FREE_METHODS: ReadonlySet<string> = new Set([
  'eth_accounts',
  'eth_blobBaseFee',
  'eth_blockNumber',
  'eth_chainId',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getRawTransactionByHash',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getUncleByBlockHashAndIndex',
  'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_getWork',
  'eth_hashrate',
  'eth_maxPriorityFeePerGas',
  'eth_mining',
  'eth_protocolVersion',
  'eth_submitWork',
  'eth_syncing',
  'eth_unsubscribe',
  // Filter ids name no address. A key with an address allowlist can only create a log filter on its own
  // addresses (eth_newFilter is checked); the ids nodes hand out are random, so one cannot be guessed.
  'eth_newBlockFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
  'net_listening',
  'net_peerCount',
  'net_version',
  'web3_clientVersion',
  'trace_block',
  'trace_transaction',
  'debug_traceBlock',
  'debug_traceBlockByHash',
  'debug_traceBlockByNumber',
  'debug_traceTransaction',
])

type Extract = (params: unknown) => string[]

const NONE: string[] = []

/** Methods that name addresses, and how to read them. An empty result means "none readable": refused. */
const EXTRACTORS = new Map<string, Extract>([
  ['eth_call', (p) => callTo(first(p))],
  ['eth_estimateGas', (p) => callTo(first(p))],
  ['eth_createAccessList', (p) => callTo(first(p))],
  ['debug_traceCall', (p) => callTo(first(p))],
  ['trace_call', (p) => callTo(first(p))],
  [
    'trace_callMany',
    (p) =>
      all(
        Array.isArray(first(p)) ? (first(p) as unknown[]).map((c) => callTo(Array.isArray(c) ? c[0] : undefined)) : [],
      ),
  ],
  ['eth_getLogs', (p) => addressFilter(first(p))],
  ['eth_newFilter', (p) => addressFilter(first(p))],
  ['eth_getBalance', (p) => single(first(p))],
  ['eth_getCode', (p) => single(first(p))],
  ['eth_getStorageAt', (p) => single(first(p))],
  ['eth_getTransactionCount', (p) => single(first(p))],
  ['eth_getProof', (p) => single(first(p))],
  ['eth_getAccount', (p) => single(first(p))],
  ['debug_storageRangeAt', (p) => single(Array.isArray(p) ? p[2] : undefined)],
  ['trace_filter', (p) => traceFilter(first(p))],
  ['eth_sendRawTransaction', (p) => rawTransactionTo(first(p))],
  ['eth_subscribe', (p) => (Array.isArray(p) && p[0] === 'logs' ? addressFilter(p[1]) : NONE)],
])

/**
 * The lowercase addresses a call names, or null when it names none (not address-checked). An empty array means
 * the call may reach addresses it does not name (eth_getLogs without an address filter, eth_call without `to`),
 * its params could not be read, or the method is not known here: rejected when the key has an address allowlist.
 */
export function touchedAddresses(method: string, params: unknown): string[] | null {
  if (ADDRESS_FREE_METHODS.has(method)) return null
  // eth_subscribe to newHeads / newPendingTransactions names no address; only "logs" takes an address filter.
  if (
    method === 'eth_subscribe' &&
    Array.isArray(params) &&
    (params[0] === 'newHeads' || params[0] === 'newPendingTransactions')
  )
    return null
  const extract = EXTRACTORS.get(method)
  return extract === undefined ? NONE : extract(params)
}

/** Methods whose address is checked (for docs and tests). */
export const ADDRESS_CHECKED_METHODS: ReadonlySet<string> = new Set(EXTRACTORS.keys())

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

export function isAddress(value: unknown): value is string {
  return typeof value === 'string' && ADDRESS.test(value)
}

const first = (params: unknown) => (Array.isArray(params) ? params[0] : undefined)

const single = (v: unknown) => (isAddress(v) ? [v.toLowerCase()] : NONE)

/** A transaction call object's `to`; a call without one (contract creation) can reach any address. */
const callTo = (call: unknown) => (isObject(call) ? single(call.to) : NONE)

/** `address` of a log filter: one address or a non-empty array of them; none means every address. */
function addressFilter(filter: unknown): string[] {
  const address = isObject(filter) ? filter.address : undefined
  if (Array.isArray(address))
    return address.length > 0 && address.every(isAddress) ? address.map((a) => a.toLowerCase()) : NONE
  return single(address)
}

/** trace_filter's `fromAddress` and `toAddress` arrays: every entry must be an address, and one must be given. */
function traceFilter(filter: unknown): string[] {
  if (!isObject(filter)) return NONE
  const named: string[] = []
  for (const side of [filter.fromAddress, filter.toAddress]) {
    if (side === undefined || side === null) continue
    if (!Array.isArray(side) || !side.every(isAddress)) return NONE
    for (const a of side) named.push(a.toLowerCase())
  }
  return named
}

/** Several lists, each of which must be readable. */
function all(lists: string[][]): string[] {
  if (lists.length === 0 || lists.some((l) => l.length === 0)) return NONE
  return lists.flat()
}

/** The recipient of a signed transaction; creations and undecodable bytes name no allowed address. */
function rawTransactionTo(raw: unknown): string[] {
  if (typeof raw !== 'string' || !raw.startsWith('0x')) return NONE
  try {
    return single(parseTransaction(raw as Hex).to)
  } catch {
    return NONE
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
