/**
 * How to read the addresses a call names, for a key's contract-address allowlist (Infura: "Any requests which
 * query addresses that aren't in the allowlist are rejected",
 * https://docs.metamask.io/developer-tools/dashboard/how-to/secure-an-api/use-an-allowlist/ ). Each catalog entry
 * (src/methods/catalog.ts) names its reader; src/keys/security/addresses.ts applies them. An empty result means
 * "none readable" (a call without `to`, a log filter without an address, unreadable params): refused.
 */
import type { AddressExtractor, EvmSubscriptionKindName } from './entry.ts'
import { transactionTo } from './raw-transaction.ts'

const NONE: string[] = []

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

export function isAddress(value: unknown): value is string {
  return typeof value === 'string' && ADDRESS.test(value)
}

const first = (params: unknown) => (Array.isArray(params) ? params[0] : undefined)

const single = (v: unknown) => (isAddress(v) ? [v.toLowerCase()] : NONE)

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A transaction call object's `to`; a call without one (contract creation) can reach any address. */
const callTo = (call: unknown) => (isObject(call) ? single(call.to) : NONE)

/** `address` of a log filter: one address or a non-empty array of them; none means every address. */
function addressFilter(filter: unknown): string[] {
  const address = isObject(filter) ? filter.address : undefined
  if (Array.isArray(address))
    return address.length > 0 && address.every(isAddress) ? address.map((a) => a.toLowerCase()) : NONE
  return single(address)
}

/** Several lists, each of which must be readable. */
function all(lists: string[][]): string[] {
  if (lists.length === 0 || lists.some((l) => l.length === 0)) return NONE
  return lists.flat()
}

/** `[call, block?]`: the call's `to` (the catalog says which methods take a call object first). */
export const firstCallTo: AddressExtractor = (p) => callTo(first(p))

/** `[[[call, traceTypes], …], block?]`: every call's `to`. */
export const everyCallTo: AddressExtractor = (p) => {
  const calls = first(p)
  return all(Array.isArray(calls) ? calls.map((c) => callTo(Array.isArray(c) ? c[0] : undefined)) : [])
}

/** `[filter]` of a log query or log filter: the filter's `address`. */
export const logFilterAddress: AddressExtractor = (p) => addressFilter(first(p))

/** `[address, …]`: methods whose first parameter is the account asked about. */
export const firstAddress: AddressExtractor = (p) => single(first(p))

/** `[blockHash, txIndex, address, …]`: the storage-range form. */
export const thirdAddress: AddressExtractor = (p) => single(Array.isArray(p) ? p[2] : undefined)

/** A trace filter's `fromAddress` and `toAddress` arrays: every entry must be an address, and one must be given. */
export const traceFilterAddresses: AddressExtractor = (p) => {
  const filter = first(p)
  if (!isObject(filter)) return NONE
  const named: string[] = []
  for (const side of [filter.fromAddress, filter.toAddress]) {
    if (side === undefined || side === null) continue
    if (!Array.isArray(side) || !side.every(isAddress)) return NONE
    for (const a of side) named.push(a.toLowerCase())
  }
  return named
}

/** A signed raw transaction: its recipient; creations and undecodable bytes name none. */
export const rawTransactionTo: AddressExtractor = (p) => {
  const to = transactionTo(first(p))
  return to === undefined ? NONE : [to]
}

/**
 * What each of eth_subscribe's kinds (the catalog's kind table, EVM_SUBSCRIPTION_KINDS in ./entry.ts) names: only
 * `logs` takes an address filter. Keyed by the kind union, so a kind added to the table does not compile until it
 * says what it names.
 */
const KIND_ADDRESSES: Readonly<Record<EvmSubscriptionKindName, AddressExtractor>> = {
  newHeads: () => null,
  logs: addressFilter,
  newPendingTransactions: () => null,
}

/** A subscription: what its kind's filter (the second param) names; an unknown kind names none readable. */
export const subscriptionAddresses: AddressExtractor = (p) => {
  if (!Array.isArray(p) || typeof p[0] !== 'string' || !Object.hasOwn(KIND_ADDRESSES, p[0])) return NONE
  return KIND_ADDRESSES[p[0] as EvmSubscriptionKindName](p[1])
}
