/**
 * The shape of one method catalog entry (one table per chain family: src/methods/evm/catalog.ts,
 * src/methods/solana/catalog.ts; src/methods/catalog.ts indexes them): everything the gateway and the wallet know
 * about a JSON-RPC method, so the served lists, prices, cache rules, retry classes, address checks and wallet scopes
 * are views of one table per family and cannot drift apart.
 */
import type { ChaingateError } from '../errors/index.ts'
import type { ChainFamily } from '../shared/chain-family.ts'

/** A family picks the method catalog; method names never repeat across families (src/methods/catalog.test.ts). */
export type { ChainFamily }

/**
 * Which calls the gateway may answer from its cache, and how their finality is judged (the eRPC and web3-proxy
 * rules: https://docs.erpc.cloud/config/database/evm-json-rpc-cache, never key on a tag, key unfinalized data on
 * its block hash).
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
  /**
   * Solana's getSlot and getBlockHeight: never below what the same key was told at the same commitment (its config
   * object at `config`), as eth_blockNumber: nodes of one network may be a few slots apart.
   */
  | { kind: 'slot'; config: number }
  /**
   * Solana reads answered with a `context.slot` (getBalance, getAccountInfo …) on a network of several nodes: sent
   * with `minContextSlot` at the highest slot the key was told at that commitment, so a node behind it answers -32016
   * and the next node is asked (https://solana.com/docs/rpc#configuring-state-commitment); never kept.
   */
  | { kind: 'context'; config: number }
  /**
   * Solana: kept (until evicted) only when the call asks for `finalized` data, the `commitment` of the config
   * object at `config`; absent means the node's default, `finalized`
   * (https://solana.com/docs/rpc#configuring-state-commitment).
   * Only finalized data never changes: `processed` and `confirmed` answers are shared while in flight, never kept.
   * A null answer (not found, not there yet) is not kept.
   */
  | { kind: 'finalized'; config: number }

/**
 * The addresses a call names: EVM hex, lowercase; Solana base58 as written (base58 is case-sensitive). null: it names
 * none; []: unreadable, or it may reach any address.
 */
export type AddressExtractor = (params: unknown) => string[] | null

export type MethodValidator = (params: unknown, method: string) => ChaingateError | undefined

export interface MethodEntry {
  /**
   * Served by default: `infura` on every network (Infura's Ethereum list,
   * https://docs.metamask.io/services/reference/ethereum/json-rpc-methods/), `devnet` on embedded networks with
   * `devMethods` only. Absent: served only where a network's `methods.allow` adds it.
   */
  served?: 'infura' | 'devnet'
  /**
   * Credits per call (https://docs.metamask.io/services/get-started/pricing/credit-cost/); `default`: not in
   * Infura's table, charged `credits.defaultCost` like any unlisted method.
   */
  credits?: number | 'default'
  /**
   * Retry safety. `read`: retried on another node after any failure, hedged when slow. `write`: a signed
   * transaction, the same bytes may be sent again (one nonce), never hedged. `node-local`: its effect or answer
   * belongs to the node it reached (filters, subscriptions, node keys, devnet state, traces), retried only when
   * the node surely did not get it.
   */
  retry?: 'read' | 'write' | 'node-local'
  /**
   * "Not there yet" on a node behind the chain, so worth asking a node further ahead: a null answer; on Solana also a
   * context-wrapped answer whose `value` is null (an account a lagging node has not seen) and the slot errors -32004
   * (block not available), -32007 and -32009 (slot skipped, or missing on this node), -32014 (block status not yet
   * available) (https://solana.com/docs/rpc, and Agave's rpc/src/custom_error.rs).
   */
  blockBound?: true
  /**
   * What the gateway's call layers may do: a cache rule (cached and shared), `shared` (identical calls in flight
   * share one upstream call), `unshared` (never shared, yet changes nothing other calls read). Absent: a call that
   * may change what the node answers next.
   */
  cache?: CacheRule | 'shared' | 'unshared'
  /**
   * For a key's contract-address allowlist: `none` (names no address) or how to read the addresses. Absent: the
   * gateway cannot check it, so a key with an address allowlist is refused.
   */
  addresses?: 'none' | AddressExtractor
  /** `create`s a node filter, `use`s one by its id, or (un)subscribes (WebSocket only, Infura). */
  filter?: 'create' | 'use' | 'subscription'
  /**
   * A subscription method whose kind is in its name (Solana's `accountSubscribe` … `accountUnsubscribe`; EVM's
   * eth_subscribe names its kind in params[0]): the kind (the family's SubscriptionKind), and whether it opens one
   * or ends one by its id.
   */
  subscription?: { kind: SubscriptionKindName; role: 'subscribe' | 'unsubscribe' }
  /**
   * In the wallet's scopes of the family's namespace (`eip155`, `solana`): `chain` (forwarded to the gateway, so
   * served), `wallet` (answered by the wallet itself), `approval` (answered by the wallet after the user approves),
   * `wallet-scope` (the wallet-level `wallet:eip155` scope, after approval).
   */
  wallet?: 'chain' | 'wallet' | 'approval' | 'wallet-scope'
  /**
   * A wallet method, not a node's (Solana's signMessage, signTransaction …: the wallet signs with its keys): listed
   * so the wallet's scopes derive from the catalog, never served through an API key.
   */
  walletOnly?: true
  /**
   * A block-range scan the gateway caps (range and result size) and splits across nodes
   * (src/gateway/layers/getlogs.ts): eth_getLogs. One method has it (src/methods/catalog.test.ts).
   */
  rangeScan?: true
  /**
   * A signed transaction sent again: the node's "already known" answer is turned into the transaction's hash
   * (src/upstreams/pool/attempts.ts), so it always takes the pool's run of attempts, even on one node.
   */
  idempotentWrite?: true
  /**
   * Answered by the gateway itself with this result, never forwarded (eth_accounts: `[]`, no keys are held, as
   * Infura's "always returns an empty array").
   */
  gatewayResult?: unknown
  /** Signs with keys the node holds: never served through an API key, whatever the configuration says. */
  nodeSigning?: true
  /** A devnet method that only adds blocks (history stays); every other devnet method may rewind the chain. */
  mines?: true
  /**
   * The work a call asks, in units of its price (blocks mined): it costs its price times this, reserved before it
   * runs and refused when more than the key's credits per second (src/gateway/pipeline/steps/price.ts).
   */
  units?: (params: unknown, method: string) => number
  /** Checks the params before the call is priced or forwarded (per-method files in src/methods/). */
  validate?: MethodValidator
  /**
   * A heavy scan (a whole program's accounts, the largest accounts of the cluster): priced `factor` times its price
   * when `when` says the call is one (always when absent), and refusable per network (providers restrict or price
   * them high: https://www.helius.dev/docs/billing/credits prices getProgramAccounts at 10 standard calls).
   */
  heavy?: { factor: number; when?: (params: unknown) => boolean }
}

/** eth_subscribe's kinds (Infura's). */
export const EVM_SUBSCRIPTION_KINDS = ['newHeads', 'logs', 'newPendingTransactions'] as const
/** Solana's kinds, a method pair each (`account`: accountSubscribe / accountUnsubscribe / accountNotification). */
export const SOLANA_SUBSCRIPTION_KINDS = [
  'account',
  'logs',
  'program',
  'signature',
  'slot',
  'root',
  'block',
  'vote',
  'slotsUpdates',
] as const
export type EvmSubscriptionKindName = (typeof EVM_SUBSCRIPTION_KINDS)[number]
export type SolanaSubscriptionKindName = (typeof SOLANA_SUBSCRIPTION_KINDS)[number]
/** A subscription kind of any family (`logs` is both EVM's and Solana's). */
export type SubscriptionKindName = EvmSubscriptionKindName | SolanaSubscriptionKindName

/**
 * Which delivered events of a subscription are charged: `each` one; `per-block` at most one per block (EVM logs:
 * a block's logs cost once); `per-second` at most one per second (pending transactions).
 */
export type EventCharge = 'each' | 'per-block' | 'per-second'

/** A subscription kind of a family (EVM: eth_subscribe's first parameter; Solana: the name before `Subscribe`). */
export interface SubscriptionKind {
  kind: SubscriptionKindName
  subscribe: string
  unsubscribe: string
  /** The method of the node's notifications. */
  notification: string
  /** Unstable on most providers: not served by default (a network may allow it). */
  unstable?: true
  /** The name of its event price in `credits.events` (EVM: the kind; Solana: the notification's method). */
  price: string
  /** Default credits per delivered event (src/methods/prices.ts says where they come from). */
  credits: number
  /** The usage ledger's method for its events (EVM `eth_subscription:newHeads`; Solana `accountNotification`). */
  label: string
  charge: EventCharge
  /**
   * What the hub replays after a node connection is lost (src/upstreams/subscriptions/replay.ts): the missed
   * `heads`, the missed `logs`; absent: resubscribed only (a mempool, Solana's events).
   */
  replay?: 'heads' | 'logs'
}

/** One family's method catalog. */
export interface FamilyCatalog {
  family: ChainFamily
  /** Every known method of the family and its entry, in table order. */
  entries: ReadonlyMap<string, Readonly<MethodEntry>>
  subscriptions: readonly SubscriptionKind[]
}
