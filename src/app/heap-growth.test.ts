import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { heapGrowingFlag, heapGrowingPercent, workerExecArgv } from './heap-growth.ts'

const here = dirname(fileURLToPath(import.meta.url))

describe('heap growth factor', () => {
  it("is the config's, else 20 with --workers and V8's own in a single process", () => {
    expect(heapGrowingPercent(null, true)).toBe(20)
    expect(heapGrowingPercent(null, false)).toBe(0)
    expect(heapGrowingPercent(50, false)).toBe(50)
    expect(heapGrowingPercent(0, true)).toBe(0)
  })

  it('is set unless 0 or the operator passed the flag to node', () => {
    expect(heapGrowingFlag(40, [], '')).toBe('--heap-growing-percent=40')
    expect(heapGrowingFlag(0, [], '')).toBeUndefined()
    expect(heapGrowingFlag(40, ['--heap-growing-percent=100'], '')).toBeUndefined()
    expect(heapGrowingFlag(40, [], '--max-old-space-size=512 --heap_growing_percent=10')).toBeUndefined()
  })

  it("gives --workers workers 8 MiB semi-spaces after the primary's own flags, unless the operator chose a size", () => {
    expect(workerExecArgv(['--enable-source-maps'], '')).toEqual(['--enable-source-maps', '--max-semi-space-size=8'])
    expect(workerExecArgv(['--max-semi-space-size=32'], '')).toEqual(['--max-semi-space-size=32'])
    expect(workerExecArgv([], '--max_semi_space_size=4')).toEqual([])
    expect(workerExecArgv([], '--min-semi-space-size=2')).toEqual([])
  })

  // A program that keeps ~30 MiB live and promotes garbage steadily, as a gateway under load does: with the factor
  // set, its old space holds far less garbage than V8's own factor lets it (Node 20: 61–66 against 158–182 MiB;
  // Node 24, whose V8 grows the limit in larger steps: 114–122 against 156–184, 0.62–0.77 of it, hence its bound).
  it('keeps the heap of a promoting program near its live size', () => {
    const peak = (percent: number) => {
      const script = `
        const { applyHeapGrowing } = await import(${JSON.stringify(join(here, 'heap-growth.ts'))})
        applyHeapGrowing(${percent})
        const { getHeapSpaceStatistics } = await import('node:v8')
        const old = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')
        const keep = []
        for (let i = 0; i < 300000; i++) keep.push({ a: i, b: 'x' + i, c: [i] })
        let peak = 0
        for (let round = 0; round < 10000; round++) {
          for (let i = 0; i < 1000; i++) {
            const o = { a: [1, 2, 3], s: 'y' + i }
            if (i % 3 === 0) keep[(i * 7919 + round * 104729) % keep.length] = o
          }
          if (round % 10 === 0) peak = Math.max(peak, old().space_used_size)
        }
        process.stdout.write(String(peak))`
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      })
      return Number(out)
    }
    const own = peak(0)
    const set = peak(20)
    expect(set).toBeGreaterThan(0)
    const bound = Number(process.versions.node.split('.')[0]) >= 24 ? 0.85 : 0.6
    expect(set).toBeLessThan(own * bound)
  }, 60_000)
})
