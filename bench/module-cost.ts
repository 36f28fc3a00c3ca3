/**
 * `npm run bench:module-cost`: what each part costs a process at start — resident memory (RSS) and heap after
 * importing it alone into a fresh `node` (after a GC), and the import time. Runs the compiled dist/
 * (`npm run build`), as `chaingate start` does. A gateway worker should not pay for what it does not run:
 * the wallet, the OpenTelemetry SDK with tracing off, the dashboard's pages until one is asked for
 * (docs/benchmarks.md, "Memory").
 *
 * Each module is measured in its own process (`node --expose-gc`), so a figure includes what it imports;
 * packages shared between two parts count in both.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { alignColumns, fmt } from './support.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const MODULES = [
  'fastify',
  'pino',
  'undici',
  'prom-client',
  'ioredis',
  'kysely',
  'better-sqlite3',
  'pg',
  'viem',
  'viem/utils',
  'jose',
  'ws',
  'zod',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-proto',
  'dist/observability/tracing-sdk.js',
  'dist/dashboard/plugin.js',
  'dist/wallet/listener/start.js',
  'dist/gateway/http/server.js',
  'dist/app/parts/gateway.js',
  'dist/app/build.js',
  'dist/app/cluster/worker.js',
  'dist/cli/start.js',
]

const PROBE = `
const base = process.memoryUsage()
const t0 = performance.now()
await import(process.argv[1])
const ms = performance.now() - t0
globalThis.gc()
const m = process.memoryUsage()
process.stdout.write(JSON.stringify({ ms, rss: m.rss - base.rss, heap: m.heapUsed - base.heapUsed, total: m.rss }))
`

if (!existsSync(join(root, 'dist', 'app', 'build.js'))) {
  console.error('dist/ is missing: run `npm run build` first')
  process.exit(2)
}
const MiB = 2 ** 20
const rows = [['module', 'import ms', 'RSS added MiB', 'heap added MiB', 'process RSS MiB']]
for (const m of MODULES) {
  const spec = m.startsWith('dist/') ? join(root, m) : m
  try {
    const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', PROBE, spec], {
      cwd: root,
      encoding: 'utf8',
    })
    const r = JSON.parse(out) as { ms: number; rss: number; heap: number; total: number }
    rows.push([m, fmt(r.ms), fmt(r.rss / MiB, 1), fmt(r.heap / MiB, 1), fmt(r.total / MiB, 1)])
  } catch (err) {
    rows.push([m, 'failed', String((err as Error).message.split('\n')[0]), '', ''])
  }
}
for (const r of alignColumns(rows, 1).cells) console.log(r.join('  '))
