/**
 * Resolves what a call costs, in Infura's order (https://docs.metamask.io/services/get-started/pricing/): the network's
 * own value, else
 * the method's value, else the default. Tables are merged once per network so the hot path is one Map lookup.
 */
import type { Config } from '../config/schema.ts'

export interface CostTable {
  method(network: string, method: string): number
  event(kind: string): number
  readonly inputError: number
  readonly batchEnvelope: number
}

export function createCostTable(credits: Config['credits'], networks: string[]): CostTable {
  const base = new Map(Object.entries(credits.methods))
  const perNetwork = new Map<string, Map<string, number>>()
  for (const name of networks) {
    perNetwork.set(name, new Map([...base, ...Object.entries(credits.networks[name] ?? {})]))
  }
  const events = new Map(Object.entries(credits.events))
  return {
    method(network, method) {
      return (perNetwork.get(network) ?? base).get(method) ?? credits.defaultCost
    },
    event(kind) {
      return events.get(kind) ?? 0
    },
    inputError: credits.inputError,
    batchEnvelope: credits.batchEnvelope,
  }
}

/** A cost table that `chaingate reload` replaces in one step: a call is priced by the table current when it asks. */
export interface SwappableCostTable extends CostTable {
  swap(next: CostTable): void
}

export function createSwappableCostTable(initial: CostTable): SwappableCostTable {
  let current = initial
  return {
    method: (network, method) => current.method(network, method),
    event: (kind) => current.event(kind),
    get inputError() {
      return current.inputError
    },
    get batchEnvelope() {
      return current.batchEnvelope
    },
    swap(next) {
      current = next
    },
  }
}
