/**
 * The JSON-RPC methods a network serves: an explicit list, never a namespace prefix (a prefix let node-signing
 * methods such as eth_sendTransactionSync and node controls such as debug_setHead through). The default is the
 * Ethereum list Infura documents — https://docs.metamask.io/services/reference/ethereum/json-rpc-methods/
 * (standard, subscription, filter, trace and debug methods) — changed per network with
 * `networks[].methods.{allow,deny}` (docs/config.md). Built once per network at start; a call is one Set lookup.
 */
import { DEV_METHOD_COSTS } from './prices.ts'

export const INFURA_ETHEREUM_METHODS: readonly string[] = [
  // Standard methods.
  'eth_accounts', // answered locally with [] (no keys are held)
  'eth_blobBaseFee',
  'eth_blockNumber',
  'eth_call',
  'eth_callMany',
  'eth_chainId',
  'eth_createAccessList',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getAccount',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getProof',
  'eth_getRawTransactionByHash',
  'eth_getStorageAt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
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
  'eth_sendRawTransaction',
  'eth_simulateV1',
  'eth_submitWork',
  'eth_syncing',
  'net_listening',
  'net_peerCount',
  'net_version',
  'web3_clientVersion',
  // Subscriptions (WebSocket only).
  'eth_subscribe',
  'eth_unsubscribe',
  // Filters.
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_newBlockFilter',
  'eth_newFilter',
  'eth_uninstallFilter',
  // Trace.
  'trace_block',
  'trace_call',
  'trace_callMany',
  'trace_filter',
  'trace_transaction',
  // Debug (tracing and storage reads only).
  'debug_storageRangeAt',
  'debug_traceBlock',
  'debug_traceBlockByHash',
  'debug_traceBlockByNumber',
  'debug_traceCall',
  'debug_traceTransaction',
]

/** Methods that sign with keys the node holds: a key holder would spend the node operator's accounts. */
const NODE_SIGNING = new Set([
  'eth_sendTransaction',
  'eth_sendTransactionSync',
  'eth_sendUnsignedTransaction',
  'eth_sign',
  'eth_signTransaction',
  'eth_signTypedData',
  'eth_signTypedData_v3',
  'eth_signTypedData_v4',
])
/** Namespaces that administer or rewrite the node (geth, anvil, hardhat, the engine API). */
const NODE_CONTROL = /^(admin|personal|miner|anvil|evm|hardhat|engine|clique)_/
/** The debug methods that only read; every other debug_* can change or stop the node (debug_setHead …). */
const DEBUG_READ =
  /^debug_(trace\w*|storageRangeAt|getRaw\w+|getBadBlocks|getAccessibleState|getModifiedAccountsBy\w+)$/

/** Whether a method can never be served through an API key, whatever the configuration says. */
export function neverServed(method: string): boolean {
  return (
    NODE_SIGNING.has(method) || NODE_CONTROL.test(method) || (method.startsWith('debug_') && !DEBUG_READ.test(method))
  )
}

export interface MethodsConfig {
  allow?: readonly string[] | undefined
  deny?: readonly string[] | undefined
}

const DEFAULT_SERVED: ReadonlySet<string> = new Set(INFURA_ETHEREUM_METHODS)

/**
 * What a local devnet answers (anvil's evm_*, anvil_* and their hardhat_* aliases), served on embedded networks
 * (`networks[].devMethods`). The list is the priced
 * one in src/methods/prices.ts. Left out on purpose: anvil_reset/hardhat_reset and anvil_setRpcUrl (they
 * make anvil fetch from any URL a caller names) anvil_setChainId (the network's chain id is fixed in the config), and
 * eth_sendTransaction with the
 * impersonation methods: anvil signs for the wallet's unlocked devnet accounts, so any key could spend them.
 */
export const DEV_METHODS: readonly string[] = Object.keys(DEV_METHOD_COSTS)

/**
 * A network's served methods: Infura's list (plus DEV_METHODS when `devMethods`), plus `allow`, minus `deny`.
 * Throws on an `allow` entry that can never be served.
 */
export function servedMethods(config?: MethodsConfig, devMethods = false): ReadonlySet<string> {
  if (!devMethods && (config === undefined || ((config.allow?.length ?? 0) === 0 && (config.deny?.length ?? 0) === 0)))
    return DEFAULT_SERVED
  const refused = (config?.allow ?? []).filter(neverServed)
  if (refused.length > 0)
    throw new Error(
      `networks[].methods.allow: ${refused.join(', ')} can never be served through an API key (node signing or node control; docs/config.md)`,
    )
  const set = new Set([...INFURA_ETHEREUM_METHODS, ...(devMethods ? DEV_METHODS : []), ...(config?.allow ?? [])])
  for (const m of config?.deny ?? []) set.delete(m)
  return set
}

export { DEFAULT_SERVED }
