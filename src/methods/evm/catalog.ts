/**
 * The EVM method catalog: one entry per JSON-RPC method the gateway or the wallet knows on an EVM network
 * (src/methods/entry.ts says what each field means; src/methods/catalog.ts indexes the families). Every per-method
 * list is a view of this table: the served sets (src/methods/served.ts), the credit prices (src/methods/prices.ts),
 * the cache and sharing rules (src/gateway/layers/cache-rules.ts), the retry classes
 * (src/upstreams/pool/retry-policy.ts), the filter routing (src/upstreams/pool/filters.ts), the address checks
 * (src/keys/security/addresses.ts) and the wallet's scopes (src/wallet/supported-methods.ts). Adding a method is one
 * entry here plus its tests; a method with behaviour of its own (a params check) has its own file in src/methods/
 * (the EVM's predate the family folders and stay there). With the Solana catalog, the only src files that name many
 * methods (src/methods/catalog.test.ts counts them). Base level: it imports nothing of the domain.
 */
import { minedBlocks, validateMine } from '../anvil_mine.ts'
import {
  everyCallTo,
  firstAddress,
  firstCallTo,
  logFilterAddress,
  rawTransactionTo,
  subscriptionAddresses,
  thirdAddress,
  traceFilterAddresses,
} from '../addresses.ts'
import {
  type CacheRule,
  EVM_SUBSCRIPTION_KINDS,
  type EventCharge,
  type EvmSubscriptionKindName,
  type FamilyCatalog,
  type MethodEntry,
  type SubscriptionKind,
} from '../entry.ts'
import { validateGetBlockByNumber } from '../eth_getBlockByNumber.ts'

const block = (at: number, blockData = false): CacheRule => ({ kind: 'block', at, blockData })
const HASH: CacheRule = { kind: 'hash' }
const TX: CacheRule = { kind: 'tx' }
const STATIC: CacheRule = { kind: 'static' }
/** Block data (null above the tip), not state at a block. */
const BLOCK_DATA = block(0, true)
const NONE = 'none'

/**
 * Devnet methods (anvil's evm_*, anvil_* and their hardhat_* aliases) are not Infura's: priced like a cheap read,
 * mining like a transaction, state dumps like a trace.
 */
const dev = (credits: number): MethodEntry => ({ served: 'devnet', credits, retry: 'node-local' })
/** Mining: 80 credits per block mined (src/methods/anvil_mine.ts), so a key's credits/s bound how fast it mines. */
const MINE: MethodEntry = { ...dev(80), mines: true, validate: validateMine, units: minedBlocks }

/** One of Infura's methods, retried and hedged as a read. */
const read = (credits: number | 'default', more?: MethodEntry): MethodEntry => ({
  served: 'infura',
  credits,
  retry: 'read',
  ...more,
})
/** A read of block or transaction data by hash or number: a null answer may mean "not there yet". */
const bound = (credits: number, cache: CacheRule, more?: MethodEntry): MethodEntry =>
  read(credits, { blockBound: true, cache, addresses: NONE, ...more })
/** A filter call: it reaches the one node that holds the filter, never shared; the wallet forwards it. */
const filter = (credits: number, kind: 'create' | 'use', more?: MethodEntry): MethodEntry => ({
  served: 'infura',
  credits,
  retry: 'node-local',
  filter: kind,
  cache: 'unshared',
  addresses: NONE,
  wallet: 'chain',
  ...more,
})
/** Debug tracing and storage reads: heavy and tracer-specific, so not hedged nor retried once a node got them. */
const debug = (addresses: MethodEntry['addresses']): MethodEntry => ({
  served: 'infura',
  credits: 1000,
  retry: 'node-local',
  addresses,
})
const ENTRIES: Record<string, MethodEntry> = {
  // Infura's standard methods.
  eth_accounts: read(80, { addresses: NONE, gatewayResult: Object.freeze([]) }),
  eth_blobBaseFee: read(300, { cache: 'shared', addresses: NONE }),
  eth_blockNumber: read(80, { cache: { kind: 'head' }, addresses: NONE, wallet: 'chain' }),
  eth_call: read(80, { cache: block(1), addresses: firstCallTo, wallet: 'chain' }),
  eth_callMany: read('default'),
  eth_chainId: read(5, { cache: STATIC, addresses: NONE, wallet: 'wallet' }),
  eth_createAccessList: read(80, { cache: 'shared', addresses: firstCallTo }),
  eth_estimateGas: read(300, { cache: 'shared', addresses: firstCallTo, wallet: 'chain' }),
  eth_feeHistory: read(80, { cache: 'shared', addresses: NONE, wallet: 'chain' }),
  eth_gasPrice: read(80, { cache: 'shared', addresses: NONE, wallet: 'chain' }),
  eth_getAccount: read('default', { addresses: firstAddress }),
  eth_getBalance: read(80, { cache: block(1), addresses: firstAddress, wallet: 'chain' }),
  eth_getBlockByHash: bound(80, HASH, { wallet: 'chain' }),
  eth_getBlockByNumber: bound(80, BLOCK_DATA, { wallet: 'chain', validate: validateGetBlockByNumber }),
  eth_getBlockReceipts: bound(1000, BLOCK_DATA),
  eth_getBlockTransactionCountByHash: bound(150, HASH, { wallet: 'chain' }),
  eth_getBlockTransactionCountByNumber: bound(150, BLOCK_DATA, { wallet: 'chain' }),
  eth_getCode: read(80, { cache: block(1), addresses: firstAddress, wallet: 'chain' }),
  eth_getLogs: read(255, { cache: 'shared', addresses: logFilterAddress, wallet: 'chain', rangeScan: true }),
  eth_getProof: read(150, { cache: block(2), addresses: firstAddress, wallet: 'chain' }),
  eth_getRawTransactionByHash: read('default', { addresses: NONE }),
  eth_getStorageAt: read(80, { cache: block(2), addresses: firstAddress, wallet: 'chain' }),
  eth_getTransactionByBlockHashAndIndex: bound(150, HASH, { wallet: 'chain' }),
  eth_getTransactionByBlockNumberAndIndex: bound(150, BLOCK_DATA, { wallet: 'chain' }),
  eth_getTransactionByHash: bound(80, TX, { wallet: 'chain' }),
  eth_getTransactionCount: read(80, { cache: block(1), addresses: firstAddress, wallet: 'chain' }),
  eth_getTransactionReceipt: bound(80, TX, { wallet: 'chain' }),
  eth_getUncleByBlockHashAndIndex: read(150, { cache: HASH, addresses: NONE }),
  eth_getUncleByBlockNumberAndIndex: read(150, { cache: BLOCK_DATA, addresses: NONE }),
  eth_getUncleCountByBlockHash: bound(150, HASH, { wallet: 'chain' }),
  eth_getUncleCountByBlockNumber: bound(150, BLOCK_DATA, { wallet: 'chain' }),
  eth_getWork: read(80, { addresses: NONE }),
  eth_hashrate: read(5, { addresses: NONE }),
  eth_maxPriorityFeePerGas: read(80, { cache: 'shared', addresses: NONE }),
  eth_mining: read(5, { addresses: NONE }),
  eth_protocolVersion: read(5, { cache: 'shared', addresses: NONE }),
  eth_sendRawTransaction: read(80, {
    retry: 'write',
    addresses: rawTransactionTo,
    wallet: 'chain',
    idempotentWrite: true,
  }),
  eth_simulateV1: read('default'),
  eth_submitWork: read(80, { retry: 'node-local', addresses: NONE }),
  eth_syncing: read(5, { cache: 'shared', addresses: NONE, wallet: 'chain' }),
  net_listening: read(5, { cache: 'shared', addresses: NONE }),
  net_peerCount: read(80, { cache: 'shared', addresses: NONE }),
  net_version: read(5, { cache: STATIC, addresses: NONE }),
  web3_clientVersion: read(80, { cache: 'shared', addresses: NONE, wallet: 'wallet' }),
  // Subscriptions: WebSocket only; the wallet keeps its own (src/wallet/methods/eth_subscribe.ts).
  eth_subscribe: read(5, {
    retry: 'node-local',
    filter: 'subscription',
    addresses: subscriptionAddresses,
    wallet: 'wallet',
  }),
  eth_unsubscribe: read(10, { retry: 'node-local', filter: 'subscription', addresses: NONE, wallet: 'wallet' }),
  // Filters. Filter ids name no address: a key with an address allowlist can only create a log filter on its own
  // addresses (eth_newFilter is checked), and the ids nodes hand out are random, so one cannot be guessed.
  eth_getFilterChanges: filter(140, 'use'),
  eth_getFilterLogs: filter(255, 'use'),
  eth_newBlockFilter: filter(80, 'create'),
  eth_newFilter: filter(80, 'create', { addresses: logFilterAddress }),
  eth_uninstallFilter: filter(80, 'use'),
  // Infura neither serves nor prices it: a network may add it (methods.allow); the wallet does not grant it.
  eth_newPendingTransactionFilter: { retry: 'node-local', filter: 'create', cache: 'unshared' },
  // Trace (Infura's paid plans).
  trace_block: read(300, { addresses: NONE }),
  trace_call: read(300, { addresses: firstCallTo }),
  trace_callMany: read(300, { addresses: everyCallTo }),
  trace_filter: read(300, { addresses: traceFilterAddresses }),
  trace_transaction: read(300, { addresses: NONE }),
  // Debug: tracing and storage reads only (every other debug_* can change or stop the node).
  debug_storageRangeAt: debug(thirdAddress),
  debug_traceBlock: debug(NONE),
  debug_traceBlockByHash: debug(NONE),
  debug_traceBlockByNumber: debug(NONE),
  debug_traceCall: debug(firstCallTo),
  debug_traceTransaction: debug(NONE),
  // Signing with the node's keys is never served (a key holder would spend the node operator's accounts); the
  // wallet signs the ones it supports with its own keys, after the user approves.
  eth_sign: { nodeSigning: true, retry: 'node-local', credits: 80 }, // in Infura's table, "listed, but unsupported"
  eth_sendTransaction: { nodeSigning: true, retry: 'node-local', wallet: 'approval' },
  eth_sendTransactionSync: { nodeSigning: true, retry: 'node-local' },
  eth_sendUnsignedTransaction: { nodeSigning: true, retry: 'node-local' },
  eth_signTransaction: { nodeSigning: true, retry: 'node-local' },
  eth_signTypedData: { nodeSigning: true, retry: 'node-local' },
  eth_signTypedData_v3: { nodeSigning: true, retry: 'node-local' },
  eth_signTypedData_v4: { nodeSigning: true, retry: 'node-local', wallet: 'approval' },
  personal_sign: { retry: 'node-local', wallet: 'approval' },
  wallet_addEthereumChain: { wallet: 'wallet-scope' },
  // Devnet (embedded networks with devMethods; docs/config.md). Left out on purpose: anvil_reset/hardhat_reset and
  // anvil_setRpcUrl (anvil would fetch from any URL a caller names), anvil_setChainId (the chain id is fixed in the
  // config), eth_sendTransaction and the impersonation methods (anvil signs for the wallet's unlocked devnet
  // accounts, so any key could spend them without the wallet user's approval).
  evm_mine: MINE,
  evm_mine_detailed: MINE,
  anvil_mine: MINE,
  anvil_mine_detailed: MINE,
  hardhat_mine: MINE,
  anvil_dumpState: dev(1000),
  anvil_loadState: dev(1000),
  evm_snapshot: dev(20),
  evm_revert: dev(20),
  evm_increaseTime: dev(20),
  evm_setNextBlockTimestamp: dev(20),
  evm_setTime: dev(20),
  evm_setAutomine: dev(20),
  evm_setIntervalMining: dev(20),
  evm_setBlockGasLimit: dev(20),
  evm_setAccountNonce: dev(20),
  anvil_snapshot: dev(20),
  anvil_revert: dev(20),
  anvil_increaseTime: dev(20),
  anvil_setNextBlockTimestamp: dev(20),
  anvil_setTime: dev(20),
  anvil_setAutomine: dev(20),
  anvil_getAutomine: dev(20),
  anvil_setIntervalMining: dev(20),
  anvil_setBlockGasLimit: dev(20),
  anvil_setBlockTimestampInterval: dev(20),
  anvil_removeBlockTimestampInterval: dev(20),
  anvil_setBalance: dev(20),
  anvil_addBalance: dev(20),
  anvil_setCode: dev(20),
  anvil_setNonce: dev(20),
  anvil_setStorageAt: dev(20),
  anvil_setCoinbase: dev(20),
  anvil_setMinGasPrice: dev(20),
  anvil_setNextBlockBaseFeePerGas: dev(20),
  anvil_setLoggingEnabled: dev(20),
  anvil_dropTransaction: dev(20),
  anvil_dropAllTransactions: dev(20),
  anvil_removePoolTransactions: dev(20),
  anvil_nodeInfo: dev(20),
  anvil_metadata: dev(20),
  anvil_enableTraces: dev(20),
  hardhat_setBalance: dev(20),
  hardhat_setCode: dev(20),
  hardhat_setNonce: dev(20),
  hardhat_setStorageAt: dev(20),
  hardhat_setCoinbase: dev(20),
  hardhat_setMinGasPrice: dev(20),
  hardhat_setNextBlockBaseFeePerGas: dev(20),
  hardhat_setLoggingEnabled: dev(20),
  hardhat_dropTransaction: dev(20),
  hardhat_getAutomine: dev(20),
  hardhat_metadata: dev(20),
}

/**
 * eth_subscribe's kinds (Infura's:
 * https://docs.metamask.io/services/reference/ethereum/json-rpc-methods/subscription-methods/), each event priced
 * by Infura's table (https://docs.metamask.io/services/get-started/pricing/credit-cost/#subscription-events).
 */
const kind = (
  name: EvmSubscriptionKindName,
  credits: number,
  charge: EventCharge,
  replay?: SubscriptionKind['replay'],
): SubscriptionKind => ({
  kind: name,
  subscribe: 'eth_subscribe',
  unsubscribe: 'eth_unsubscribe',
  notification: 'eth_subscription',
  price: name,
  credits,
  label: `eth_subscription:${name}`,
  charge,
  ...(replay === undefined ? {} : { replay }),
})

const SUBSCRIPTIONS: Record<EvmSubscriptionKindName, SubscriptionKind> = {
  newHeads: kind('newHeads', 50, 'each', 'heads'),
  logs: kind('logs', 300, 'per-block', 'logs'),
  newPendingTransactions: kind('newPendingTransactions', 200, 'per-second'),
}

export const EVM_CATALOG: FamilyCatalog = {
  family: 'evm',
  entries: new Map(Object.entries(ENTRIES)),
  subscriptions: EVM_SUBSCRIPTION_KINDS.map((k) => SUBSCRIPTIONS[k]),
}
