/**
 * Step 2, price: what the method policy (src/methods) does with a call, and what it costs. A call the gateway
 * refuses for its input costs the input-error fee; any other call its price (network table → method table →
 * default). The full price is reserved by the next step and refunded where the answer is free.
 */
import type { CostTable } from '../../../credits/costs.ts'
import type { RpcCall } from '../../../jsonrpc/envelope.ts'
import { decide, type MethodDecision } from '../../../methods/policy.ts'
import type { CallContext } from '../types.ts'

export function decision(ctx: CallContext, call: RpcCall): MethodDecision {
  return decide(call, ctx.transport, ctx.network.methods)
}

export function priceOf(costs: CostTable, ctx: CallContext, call: RpcCall, d: MethodDecision): number {
  return d.kind === 'error' ? costs.inputError : costs.method(ctx.network.name, call.method)
}
