/**
 * The method catalogs, one per chain family (src/methods/evm/catalog.ts, src/methods/solana/catalog.ts; the entry
 * shape in src/methods/entry.ts). A network's family picks its catalog; every per-method list is a view of it (the
 * served sets, prices, cache rules, retry classes, address checks, wallet scopes). Method names never repeat across
 * families (src/methods/catalog.test.ts), so a view asked for one method by name — on the per-call path: the cache
 * rule, the retry class, the address reader, the params check — is one lookup over every family's entries, the same
 * for every network; a network never gets another family's method that far (its served set holds only its own).
 * Base level: it imports nothing of the domain.
 */
import type { ChainFamily, FamilyCatalog, MethodEntry, SubscriptionKind } from './entry.ts'
import { EVM_CATALOG } from './evm/catalog.ts'
import { evmNamespaces } from './evm/namespaces.ts'
import { SOLANA_CATALOG } from './solana/catalog.ts'

export type {
  AddressExtractor,
  CacheRule,
  ChainFamily,
  EventCharge,
  EvmSubscriptionKindName,
  MethodEntry,
  SolanaSubscriptionKindName,
  SubscriptionKind,
  SubscriptionKindName,
} from './entry.ts'
export { EVM_SUBSCRIPTION_KINDS, SOLANA_SUBSCRIPTION_KINDS } from './entry.ts'
export { evmNamespaces } from './evm/namespaces.ts'

const CATALOGS: Readonly<Record<ChainFamily, FamilyCatalog>> = { evm: EVM_CATALOG, solana: SOLANA_CATALOG }

import { CHAIN_FAMILIES } from '../shared/chain-family.ts'

export { CHAIN_FAMILIES, FAMILY_NAMES } from '../shared/chain-family.ts'

/** A family's methods and their entries, in table order. */
export const catalogFor = (family: ChainFamily): ReadonlyMap<string, Readonly<MethodEntry>> => CATALOGS[family].entries

/** A family's subscription kinds (EVM: eth_subscribe's first parameter; Solana: one method pair per kind). */
export const subscriptionKinds = (family: ChainFamily): readonly SubscriptionKind[] => CATALOGS[family].subscriptions

/** The methods of a family whose entry satisfies `test`, in catalog order. */
export const methodsWhere = (family: ChainFamily, test: (entry: Readonly<MethodEntry>) => boolean): string[] =>
  [...catalogFor(family)].filter(([, e]) => test(e)).map(([m]) => m)

/** Every family's methods and entries (names are unique across families). */
export const ALL_METHODS: ReadonlyMap<string, Readonly<MethodEntry>> = new Map(
  CHAIN_FAMILIES.flatMap((f) => [...catalogFor(f)]),
)

/** The methods of any family whose entry satisfies `test` (for by-name views, the same for every network). */
export const anyMethodsWhere = (test: (entry: Readonly<MethodEntry>) => boolean): string[] =>
  [...ALL_METHODS].filter(([, e]) => test(e)).map(([m]) => m)

const FAMILY_OF: ReadonlyMap<string, ChainFamily> = new Map(
  CHAIN_FAMILIES.flatMap((f) => [...catalogFor(f).keys()].map((m) => [m, f] as const)),
)

/** An EVM namespace a method outside the catalog may still be named with: its family is plain from the prefix. */
const EVM_NAMESPACE = new RegExp(`^${evmNamespaces()}`)

/** The family a method belongs to: its catalog's, or for an unlisted name its EVM namespace; undefined if unknown. */
export function familyOf(method: string): ChainFamily | undefined {
  return FAMILY_OF.get(method) ?? (EVM_NAMESPACE.test(method) ? 'evm' : undefined)
}

/**
 * The block-range scan the gateway's call layers cap and split (the entry with `rangeScan`: eth_getLogs). One name,
 * so the per-call test stays a string comparison.
 */
export const RANGE_SCAN_METHOD: string = anyMethodsWhere((e) => e.rangeScan === true)[0]!
