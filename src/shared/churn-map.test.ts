/**
 * ChurnMap answers as a Map does (a seeded run of random operations across many rebuilds), and it is what keeps a
 * gateway's per-call entries young: under the same set/delete churn a long-lived Map has every entry promoted, a
 * ChurnMap almost none (V8's own count, `--trace-gc-nvp`, in a child process).
 */
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { ChurnMap } from './churn-map.ts'

it('gets, sets, deletes, clears and lists like a Map through thousands of rebuilds (seeded random operations)', () => {
  let seed = 19
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return seed % n
  }
  const churn = new ChurnMap<string, number>()
  const map = new Map<string, number>()
  for (let step = 0; step < 200_000; step++) {
    // Keys from a range that drifts: old keys come back sometimes, most are new.
    const key = `k${Math.floor(step / 4) + random(64) - 32}`
    const op = random(100)
    if (op < 45) {
      churn.set(key, step)
      map.set(key, step)
    } else if (op < 90) expect(churn.delete(key)).toBe(map.delete(key))
    else if (op < 99) expect(churn.get(key)).toBe(map.get(key))
    else if (random(50) === 0) {
      churn.clear()
      map.clear()
    }
    if (step % 10_007 === 0) expect([...churn.values()].sort()).toEqual([...map.values()].sort())
  }
  expect([...churn.values()].sort()).toEqual([...map.values()].sort())
})

it('deletes only the given value when asked to: a newer entry under the same key stays', () => {
  const m = new ChurnMap<string, object>()
  const older = {}
  const newer = {}
  m.set('k', older)
  m.set('k', newer)
  expect(m.delete('k', older)).toBe(false)
  expect(m.get('k')).toBe(newer)
  expect(m.delete('k', newer)).toBe(true)
  expect(m.get('k')).toBeUndefined()
})

const here = dirname(fileURLToPath(import.meta.url))

/**
 * KiB promoted per scavenge while `kind` ('map' or 'churn') takes batches of 64 entries set, then deleted. A fixed
 * number of batches, not a time: a loaded machine would otherwise see too few scavenges (~45 for the Map on Node 24).
 */
function promotedPerScavenge(kind: 'map' | 'churn'): number {
  const script = `
    const { ChurnMap } = await import(${JSON.stringify(join(here, 'churn-map.ts'))})
    const m = ${kind === 'map' ? 'new Map()' : 'new ChurnMap()'}
    globalThis.gc()
    let k = 0, junk = [], left = 12_000
    const batch = () => {
      const keys = []
      for (let i = 0; i < 64; i++) {
        const key = 'net:eth_getBalance:["0x' + (k++).toString(16).padStart(40, '0') + '","latest"]'
        m.set(key, { generation: 1, promise: undefined })
        keys.push(key)
      }
      for (let j = 0; j < 200; j++) junk = [junk.length, { j }]
      for (const key of keys) m.delete(key)
      if (--left > 0) setImmediate(batch)
    }
    batch()`
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--trace-gc-nvp', '--import', 'tsx', '--input-type=module', '-e', script],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  )
  const promoted = [...out.matchAll(/gc=s .*?promoted=(\d+)/g)].map((m) => Number(m[1]))
  expect(promoted.length).toBeGreaterThan(20)
  return promoted.reduce((a, b) => a + b, 0) / promoted.length / 1024
}

it('keeps per-call entries young where a long-lived Map has them promoted', () => {
  const map = promotedPerScavenge('map')
  const churn = promotedPerScavenge('churn')
  expect(map).toBeGreaterThan(100) // ~2 MiB per scavenge measured
  expect(churn).toBeLessThan(map / 20)
}, 30_000)
