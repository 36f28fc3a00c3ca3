/**
 * Step 2, price: what the method policy (src/methods) does with a call, and what it costs. A call the gateway
 * refuses for its input costs the input-error fee; any other call its price (network table → method table →
 * default), times the work it asks for a method whose catalog entry says (`units`: blocks mined by a devnet mining
 * call). The full price is reserved by the next step and refunded where the answer is free. A work-priced call must
 * fit the key's credits per second outright: the limit store lets an ordinary call costing more than a second's
 * budget through on a full bucket, but a mining call that asks for more blocks than that pays for is refused before
 * it runs (docs/config.md, `devMethods`).
 */
import type { CostTable } from '../../../credits/costs.ts'
import type { LimitCode } from '../../../errors/registry.ts'
import type { ParsedEntry, RpcCall } from '../../../jsonrpc/types.ts'
import { ALL_METHODS } from '../../../methods/catalog.ts'
import type { MethodEntry } from '../../../methods/entry.ts'
import { decide, type MethodDecision } from '../../../methods/policy.ts'
import { heavyFactor } from '../../../methods/prices.ts'
import type { CallContext } from '../types.ts'

/** Methods priced by the work they ask (src/methods/catalog.ts `units`). */
const UNITS = new Map<string, NonNullable<MethodEntry['units']>>()
for (const [method, e] of ALL_METHODS) if (e.units !== undefined) UNITS.set(method, e.units)

export function decision(ctx: CallContext, call: RpcCall): MethodDecision {
  return decide(call, ctx.transport, ctx.network.methods, ctx.network)
}

export function priceOf(costs: CostTable, ctx: CallContext, call: RpcCall, d: MethodDecision): number {
  if (d.kind === 'error') return costs.inputError
  // A heavy Solana scan (getProgramAccounts without filters …) costs a multiple (its catalog entry's `heavy`).
  const price = costs.method(ctx.network.name, call.method) * heavyFactor(call.method, call.params)
  const units = UNITS.get(call.method)
  return units === undefined ? price : price * units(call.params, call.method)
}

/**
 * The refusal of a request costing `price` that holds a work-priced call and costs more than the key's (or its
 * plan's) credits per second; null otherwise (two comparisons for an ordinary call).
 */
export function overBudget(ctx: CallContext, price: number, calls: RpcCall | readonly ParsedEntry[]): LimitCode | null {
  const l = ctx.entry.limits
  const key = l.keyCreditsPerSecond
  if (price <= l.accountCreditsPerSecond && (key === null || price <= key)) return null
  const work = Array.isArray(calls)
    ? calls.some((e) => e.ok && UNITS.has(e.call.method))
    : UNITS.has((calls as RpcCall).method)
  if (!work) return null
  return key !== null && price > key ? 'KEY_THROUGHPUT_EXCEEDED' : 'ACCOUNT_THROUGHPUT_EXCEEDED'
}
