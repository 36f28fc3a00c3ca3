/**
 * Default credit costs, read from the method catalogs (catalog.ts). EVM: Infura's published table
 * (https://docs.metamask.io/services/get-started/pricing/credit-cost/); methods not listed cost
 * `credits.defaultCost` (80). The devnet methods (served on embedded networks only) are not Infura's: mining and
 * signing cost like a transaction, state dumps like a trace, the rest like a cheap read. Solana: Infura's network
 * table, 180 credits for every method, and heavy scans a multiple of that (the entry's `heavy`).
 */
import {
  ALL_METHODS,
  CHAIN_FAMILIES,
  catalogFor,
  type ChainFamily,
  type MethodEntry,
  subscriptionKinds,
} from './catalog.ts'

const pricesWhere = (family: ChainFamily, devnet: boolean): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [method, e] of catalogFor(family))
    if (typeof e.credits === 'number' && (e.served === 'devnet') === devnet) out[method] = e.credits
  return out
}

/** Infura's table (every method with a price of its own, served or not). */
export const DEFAULT_METHOD_COSTS: Record<string, number> = pricesWhere('evm', false)

/** Devnet methods (embedded networks, `networks[].devMethods`; docs/config.md). */
export const DEV_METHOD_COSTS: Record<string, number> = pricesWhere('evm', true)

/** Infura's Solana prices (every method 180), and the Solana devnet's methods if any. */
export const SOLANA_METHOD_COSTS: Record<string, number> = {
  ...pricesWhere('solana', false),
  ...pricesWhere('solana', true),
}

const COSTS: Readonly<Record<ChainFamily, Readonly<Record<string, number>>>> = {
  evm: { ...DEFAULT_METHOD_COSTS, ...DEV_METHOD_COSTS },
  solana: SOLANA_METHOD_COSTS,
}

/** A family's default price table (method → credits). */
export const methodCosts = (family: ChainFamily): Readonly<Record<string, number>> => COSTS[family]

/**
 * A method's own price in a family's catalog; undefined when it has none there (another family's method, or one
 * charged `credits.defaultCost`).
 */
export function priceOf(family: ChainFamily, method: string): number | undefined {
  const credits = catalogFor(family).get(method)?.credits
  return typeof credits === 'number' ? credits : undefined
}

/**
 * Cost of each delivered subscription event (charged on top of the subscribe call), by each kind's price name: the
 * catalogs' (EVM kinds by name, Infura's table; Solana's by their notification's method, `slotNotification` …).
 */
export const DEFAULT_EVENT_COSTS: Record<string, number> = Object.fromEntries(
  CHAIN_FAMILIES.flatMap((f) => subscriptionKinds(f).map((k) => [k.price, k.credits])),
)

const HEAVY = new Map<string, NonNullable<MethodEntry['heavy']>>()
for (const [method, e] of ALL_METHODS) if (e.heavy !== undefined) HEAVY.set(method, e.heavy)

/** Methods that may be heavy scans (getProgramAccounts, getLargestAccounts): for docs, config checks and tests. */
export const HEAVY_METHODS: ReadonlySet<string> = new Set(HEAVY.keys())

/**
 * How many times its price a call costs for being a heavy scan: 1 for any other call (one Map lookup). A network
 * may refuse heavy scans (the caller's config); this only says which calls are.
 */
export function heavyFactor(method: string, params: unknown): number {
  const h = HEAVY.get(method)
  return h === undefined || (h.when !== undefined && !h.when(params)) ? 1 : h.factor
}
