import { describe, expect, it } from 'vitest'
import { decide } from './policy.ts'
import { INFURA_ETHEREUM_METHODS, neverServed, servedMethods } from './served.ts'
import { methodLabel } from './labels.ts'

const call = (method: string, params: unknown[] = []) => ({ id: 1, hasId: true, method, params })
const refusal = (m: string) => ({
  kind: 'error',
  error: expect.objectContaining({ rpcCode: -32601, message: `The method ${m} does not exist/is not available` }),
})

describe('method policy', () => {
  it('security: only listed methods are forwarded; node signing and node control get Infura -32601', () => {
    for (const m of [
      'eth_sendTransactionSync',
      'eth_sendUnsignedTransaction',
      'debug_setHead',
      'eth_sendTransaction',
      'eth_sign',
      'txpool_content',
      'anvil_setBalance',
      'eth_notAMethod',
      'trace_replayBlockTransactions',
    ])
      expect(decide(call(m), 'http'), m).toEqual(refusal(m))
    expect(decide(call('eth_blockNumber'), 'http')).toEqual({ kind: 'forward' })
    expect(decide(call('debug_traceCall', [{}, 'latest']), 'http')).toEqual({ kind: 'forward' })
    expect(decide(call('eth_accounts'), 'ws')).toEqual({ kind: 'result', result: [] })
    expect(decide(call('eth_subscribe', ['newHeads']), 'http')).toMatchObject({
      kind: 'error',
      error: { rpcCode: -32601 },
    })
    expect(decide(call('eth_subscribe', ['newHeads']), 'ws')).toEqual({ kind: 'forward' })
  })

  it('per network: allow adds, deny removes; a served list never holds node-signing or node-control methods', () => {
    const served = servedMethods({
      allow: ['txpool_content', 'linea_estimateGas'],
      deny: ['eth_getBalance', 'eth_accounts'],
    })
    expect(decide(call('txpool_content'), 'http', served)).toEqual({ kind: 'forward' })
    expect(decide(call('linea_estimateGas'), 'http', served)).toEqual({ kind: 'forward' })
    expect(decide(call('eth_getBalance'), 'http', served)).toEqual(refusal('eth_getBalance'))
    expect(decide(call('eth_accounts'), 'http', served)).toEqual(refusal('eth_accounts'))
    expect(decide(call('txpool_content'), 'http')).toEqual(refusal('txpool_content'))
    expect(() => servedMethods({ allow: ['eth_sendTransaction', 'debug_setHead', 'anvil_mine'] })).toThrow(
      /eth_sendTransaction, debug_setHead, anvil_mine can never be served/,
    )
    for (const m of INFURA_ETHEREUM_METHODS) expect(neverServed(m), m).toBe(false)
    for (const m of [
      'personal_sign',
      'admin_peers',
      'miner_start',
      'evm_mine',
      'hardhat_reset',
      'engine_newPayloadV3',
      'debug_setHead',
      'debug_chaindbCompact',
      'eth_signTypedData_v4',
    ])
      expect(neverServed(m), m).toBe(true)
    expect(neverServed('debug_getRawBlock')).toBe(false)
  })

  it('error: a huge unknown name is not echoed in full', () => {
    const name = `eth_${'x'.repeat(1 << 20)}`
    const d = decide(call(name), 'http')
    expect(d.kind).toBe('error')
    expect((d as { error: Error }).error.message.length).toBeLessThan(300)
  })

  it('labels: a method is stored by name only when known, and never longer than 64 characters', () => {
    const known = new Set(['eth_call'])
    expect(methodLabel('eth_call', known)).toBe('eth_call')
    expect(methodLabel('(invalid)', known)).toBe('(invalid)')
    expect(methodLabel('eth_subscription:logs', known)).toBe('eth_subscription:logs')
    // Solana's events are recorded under their notification's method.
    expect(methodLabel('slotNotification', known)).toBe('slotNotification')
    expect(methodLabel('accountNotification', known)).toBe('accountNotification')
    expect(methodLabel('(whatever', known)).toBe('other')
    expect(methodLabel('x'.repeat(1 << 20), new Set(['x'.repeat(1 << 20)]))).toBe('other')
  })
})

describe('mining counts on devnets', () => {
  const devnet = new Set(['anvil_mine', 'hardhat_mine', 'evm_mine', 'evm_mine_detailed', 'anvil_mine_detailed'])
  const ask = (method: string, params: unknown[]) =>
    decide({ method, params, id: 1, hasId: true } as never, 'http', devnet)
  it('refuses more than 10,000 blocks in one call with -32602 naming the limit; fewer, and timestamps, pass', () => {
    for (const [method, params] of [
      ['anvil_mine', ['0x2711']],
      ['hardhat_mine', ['0xffffffffffff']],
      ['anvil_mine', [1e9]],
      ['evm_mine', [{ blocks: 20000 }]],
      ['anvil_mine_detailed', [{ blocks: '0x2711' }]],
      ['anvil_mine', ['ten']],
    ] as const) {
      const d = ask(method, [...params])
      expect([method, d.kind === 'error' ? d.error.rpcCode : d.kind]).toEqual([method, -32602])
    }
    for (const [method, params] of [
      ['anvil_mine', []],
      ['anvil_mine', ['0x2710', '0x1']],
      ['hardhat_mine', [null]],
      ['evm_mine', [1767225600]],
      ['evm_mine', [{ timestamp: 1767225600 }]],
    ] as const)
      expect([method, ask(method, [...params]).kind]).toEqual([method, 'forward'])
  })
})
