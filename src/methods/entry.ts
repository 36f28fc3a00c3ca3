/**
 * The shape of one method catalog entry (src/methods/catalog.ts): everything the gateway and the wallet know about
 * a JSON-RPC method, so the served lists, prices, cache rules, retry classes, address checks and wallet scopes are
 * views of one table and cannot drift apart.
 */
import type { ChaingateError } from '../errors/index.ts'

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

/** The addresses a call names, lowercase; null: it names none; []: unreadable, or it may reach any address. */
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
  /** A null answer means "not there yet" on a node behind the chain: worth asking a node further ahead. */
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
   * In the wallet's `eip155` scopes: `chain` (forwarded to the gateway, so served), `wallet` (answered by the
   * wallet itself), `approval` (answered by the wallet after the user approves), `wallet-scope` (the wallet-level
   * `wallet:eip155` scope, after approval).
   */
  wallet?: 'chain' | 'wallet' | 'approval' | 'wallet-scope'
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
}
