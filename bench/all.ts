/**
 * `npm run bench`: every benchmark, one after another (each compares against its references in the same run and
 * prints ratios; docs/benchmarks.md). BENCH_SUITES picks some, e.g. `BENCH_SUITES=gateway,cache npm run bench`.
 * Each suite runs in its own process so one's servers and timers cannot disturb the next; the settings of each
 * (BENCH_DURATION, BENCH_CONNECTIONS, ...) pass through. Suites that need PostgreSQL/Redis say so when they are absent.
 */
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
/** In the order the docs present them: the per-request path first, then what the layers and scale-out add. */
const SUITES = [
  'gateway',
  'pinned',
  'cache',
  'upstreams',
  'subscriptions',
  'fanout',
  'solana-balance',
  'solana-fanout',
  'upstream-usage',
  'limits',
  'storage',
  'scale-out',
  'workers',
  'wallet',
] as const

const asked = (process.env.BENCH_SUITES ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean)
const unknown = asked.filter((s) => !(SUITES as readonly string[]).includes(s))
if (unknown.length > 0) {
  console.error(`unknown BENCH_SUITES ${unknown.join(', ')}; known: ${SUITES.join(', ')}`)
  process.exit(2)
}
const chosen = asked.length > 0 ? asked : [...SUITES]
const failed: string[] = []
for (const suite of chosen) {
  console.log(`\n=== bench: ${suite} (bench/${suite}.bench.ts)`)
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${suite}.bench.ts`)], { stdio: 'inherit' })
  if (r.status !== 0) failed.push(`${suite} (exit ${r.status ?? r.signal})`)
}
if (failed.length > 0) {
  console.error(`\nbenchmarks that did not finish: ${failed.join(', ')}`)
  process.exit(1)
}
