/**
 * Step 2 on its own: the catalog's decision per call, its price (network table → method table → default, times the
 * blocks a mining call asks for) and the work-priced refusal (docs/config.md, `devMethods`).
 */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../../config/load.ts'
import { createCostTable } from '../../../credits/costs.ts'
import type { KeyLimits } from '../../../credits/limits/memory.ts'
import type { KeyEntry } from '../../../keys/snapshot.ts'
import type { RpcCall } from '../../../jsonrpc/types.ts'
import { servedMethods } from '../../../methods/served.ts'
import type { CallContext } from '../types.ts'
import { decision, overBudget, priceOf } from './price.ts'
import { evmNetwork } from '../../../networks/network.test-support.ts'

const config = parseConfig({
  networks: [{ name: 'net', chainId: 1, upstreams: [{ url: 'http://node.invalid' }] }],
  credits: { methods: { eth_call: 20 }, networks: { net: { eth_getBalance: 7 } } },
})
const costs = createCostTable(config.credits, ['net'])

function context(limits: Partial<KeyLimits> = {}, devMethods = false): CallContext {
  const keyLimits: KeyLimits = {
    accountId: 'acc',
    keyId: 'key',
    accountCreditsPerDay: 1_000_000,
    accountCreditsPerSecond: 1000,
    keyCreditsPerDay: null,
    keyCreditsPerSecond: null,
    ...limits,
  }
  return {
    entry: { limits: keyLimits } as KeyEntry,
    network: evmNetwork('net', 1, servedMethods(undefined, devMethods)),
    pool: undefined as never,
    transport: 'http',
  }
}
const call = (method: string, params?: unknown[]): RpcCall => ({ id: 1, hasId: true, method, params })

describe('price step', () => {
  it('decides per call: served methods go on, unserved ones are input errors, eth_accounts is answered here', () => {
    const ctx = context()
    expect(decision(ctx, call('eth_blockNumber', []))).toEqual({ kind: 'forward' })
    expect(decision(ctx, call('anvil_mine', []))).toMatchObject({ kind: 'error' })
    expect(decision(ctx, call('eth_accounts', []))).toEqual({ kind: 'result', result: [] })
    expect(decision(context({}, true), call('anvil_mine', []))).toEqual({ kind: 'forward' })
  })

  it('prices from the network table, then the method table, then the default; an input error costs its fee', () => {
    const ctx = context()
    const price = (method: string) => priceOf(costs, ctx, call(method, []), decision(ctx, call(method, [])))
    expect(price('eth_getBalance')).toBe(7)
    expect(price('eth_call')).toBe(20)
    expect(price('eth_blockNumber')).toBe(config.credits.methods.eth_blockNumber ?? config.credits.defaultCost)
    expect(price('not_a_method')).toBe(config.credits.inputError)
    expect(config.credits.inputError).toBe(5)
  })

  it('a mining call costs its price per block it asks for', () => {
    const ctx = context({}, true)
    const one = priceOf(costs, ctx, call('anvil_mine', []), { kind: 'forward' })
    expect(one).toBeGreaterThan(0)
    expect(priceOf(costs, ctx, call('anvil_mine', ['0x3']), { kind: 'forward' })).toBe(3 * one)
    expect(priceOf(costs, ctx, call('evm_mine', []), { kind: 'forward' })).toBe(one)
  })

  it("refuses a work-priced call above a second's budget; an ordinary call over it is left to the limit store", () => {
    const mine = call('anvil_mine', ['0x3'])
    expect(overBudget(context({ accountCreditsPerSecond: 1000 }, true), 240, mine)).toBeNull()
    expect(overBudget(context({ accountCreditsPerSecond: 100 }, true), 240, mine)).toBe('ACCOUNT_THROUGHPUT_EXCEEDED')
    expect(overBudget(context({ keyCreditsPerSecond: 100 }, true), 240, mine)).toBe('KEY_THROUGHPUT_EXCEEDED')
    expect(overBudget(context({ accountCreditsPerSecond: 10 }), 80, call('eth_call', []))).toBeNull()
    const batch = [
      { ok: true as const, call: call('eth_call', []) },
      { ok: true as const, call: mine },
    ]
    expect(overBudget(context({ accountCreditsPerSecond: 100 }, true), 260, batch)).toBe('ACCOUNT_THROUGHPUT_EXCEEDED')
  })
})
