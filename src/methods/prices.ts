/**
 * Default credit costs, from Infura's published table
 * (https://docs.metamask.io/services/get-started/pricing/credit-cost/), read from the method catalog (catalog.ts).
 * Methods not listed cost `credits.defaultCost` (80). The devnet methods (served on embedded networks only) are not
 * Infura's: mining and signing cost like a transaction, state dumps like a trace, the rest like a cheap read.
 */
import { CATALOG } from './catalog.ts'

const pricesWhere = (devnet: boolean): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [method, e] of CATALOG)
    if (typeof e.credits === 'number' && (e.served === 'devnet') === devnet) out[method] = e.credits
  return out
}

/** Infura's table (every method with a price of its own, served or not). */
export const DEFAULT_METHOD_COSTS: Record<string, number> = pricesWhere(false)

/** Devnet methods (embedded networks, `networks[].devMethods`; docs/config.md). */
export const DEV_METHOD_COSTS: Record<string, number> = pricesWhere(true)

/** Cost of each delivered subscription event (charged on top of eth_subscribe). */
export const DEFAULT_EVENT_COSTS: Record<string, number> = {
  newHeads: 50,
  logs: 300,
  newPendingTransactions: 200,
}
