import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { createMemoryCacheStore, createMemoryHeadFloorStore } from './cache-store.ts'

describe('memory cache store', () => {
  it('stays within its byte budget, dropping the least recently used entries first', () => {
    const store = createMemoryCacheStore({ maxBytes: 4096 })
    const value = Buffer.alloc(1000, 1)
    for (let i = 0; i < 10; i++) {
      store.set(`n\0m\0${i}`, value, { immutable: true })
      if (i === 1) store.get('n\0m\u00000') // 0 used recently: kept over 1
    }
    expect(store.sizeBytes).toBeLessThanOrEqual(4096)
    expect(store.get('n\0m\u00009')).toEqual(value)
    expect(store.get('n\0m\u00001')).toBeUndefined()
  })

  it("holds about its budget in memory when full of small answers (each entry's overhead counted)", async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    // Twice, a turn apart: memory an earlier file of this worker left (unit files share it) is freed by weak
    // callbacks after a first collection, and would otherwise be counted as freed during the measurement.
    const collect = async () => {
      gc()
      await new Promise((resolve) => setImmediate(resolve))
      gc()
    }
    const budget = 16 * 2 ** 20
    await collect()
    const before = process.memoryUsage()
    const store = createMemoryCacheStore({ maxBytes: budget })
    for (let i = 0; i < 100_000; i++) {
      const key = `mainnet\0eth_getBalance\0["0x${i.toString(16).padStart(40, '0')}","0x${(i % 50).toString(16)}"]`
      store.set(key, Buffer.from(`{"jsonrpc":"2.0","id":1,"result":"0x${(i * 7919).toString(16)}"}`), {
        immutable: true,
      })
    }
    await collect()
    const after = process.memoryUsage()
    const held = after.heapUsed + after.external - before.heapUsed - before.external
    expect(store.sizeBytes).toBeLessThanOrEqual(budget)
    expect(store.sizeBytes).toBeGreaterThan(budget * 0.9)
    expect(held).toBeLessThan(budget * 1.3)
    expect(held).toBeGreaterThan(budget * 0.5)
  })

  it('an entry larger than the whole budget is not stored', () => {
    const store = createMemoryCacheStore({ maxBytes: 1024 })
    store.set('big', Buffer.alloc(4096), { immutable: true })
    expect(store.get('big')).toBeUndefined()
  })

  it('clears one network by key prefix, leaving the others', () => {
    const store = createMemoryCacheStore({ maxBytes: 1 << 20 })
    store.set('a\0eth_chainId', Buffer.from('"0x1"'), { immutable: true })
    store.set('b\0eth_chainId', Buffer.from('"0x2"'), { immutable: true })
    store.clear('a\0')
    expect([store.get('a\0eth_chainId'), store.get('b\0eth_chainId')?.toString()]).toEqual([undefined, '"0x2"'])
  })

  it('entries that are not immutable expire after their TTL', async () => {
    const store = createMemoryCacheStore({ maxBytes: 1 << 20 })
    store.set('k', Buffer.from('1'), { immutable: false, ttlMs: 30 })
    expect(store.get('k')).toBeDefined()
    await new Promise((r) => setTimeout(r, 80))
    expect(store.get('k')).toBeUndefined()
  })
})

describe('memory head floors', () => {
  it('only ever rise, per key and network, until the network is reset', () => {
    const floors = createMemoryHeadFloorStore()
    expect(floors.raise('k1', 'n', 10)).toBe(10)
    expect(floors.raise('k1', 'n', 7)).toBe(10)
    expect(floors.get('k2', 'n')).toBe(0)
    expect(floors.raise('k1', 'other', 3)).toBe(3)
    floors.reset('n')
    expect([floors.get('k1', 'n'), floors.get('k1', 'other')]).toEqual([0, 3])
  })
})
