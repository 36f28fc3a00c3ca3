/**
 * Target (c) of the benchmark: chaingate as it runs in production — key check with key security on (startApp
 * always loads it; the bench key has no settings, the synchronous path of every such key), credits and limits,
 * usage ledger, Prometheus metrics and one pino log line per request — in front of an existing node.
 *
 * Run as its own process (the benchmark spawns it): `node --import tsx bench/run-chaingate.ts <upstream-url>[,<url>…]
 * [log-file]`
 * (several comma-separated URLs: one pool of several upstreams, every layer on).
 * Without a log file, log lines go to /dev/null (still formatted and written: logging stays on).
 * Prints one JSON line `{"url": "<endpoint with key>", "gateway": "<base url>"}` on stdout once ready; exits
 * when stdin closes (its parent ended, even by SIGKILL) or on SIGTERM/SIGINT, removing its temp data dir.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'

// BENCH_DIST=1: the compiled dist/ (`npm run build`), as `chaingate start` runs it: real function names and lines in
// a CPU profile, and no transpiler in the process's memory. BENCH_DIST_DIR: another build's directory instead (a copy
// of dist/ from another commit, to compare two builds in one run).
const distDir = process.env.BENCH_DIST_DIR ?? '../dist'
const from = process.env.BENCH_DIST === '1' ? { dir: distDir, ext: 'js' } : { dir: '../src', ext: 'ts' }
const { startApp } = (await import(`${from.dir}/app/build.${from.ext}`)) as typeof import('../src/app/build.ts')
const { parseConfig } = (await import(`${from.dir}/config/load.${from.ext}`)) as typeof import('../src/config/load.ts')
const { createLogger } = (await import(
  `${from.dir}/observability/logger.${from.ext}`
)) as typeof import('../src/observability/logger.ts')

const BENCH_NETWORK = 'bench'
const WS_CAPS_LIFTED = {
  maxWsConnectionsPerKey: 1_000_000,
  maxWsConnectionsPerAddress: 1_000_000,
  maxSubscriptionsPerKey: 10_000_000,
}

const upstream = process.argv[2]
if (!upstream) {
  console.error('usage: node --import tsx bench/run-chaingate.ts <upstream-url> [log-file]')
  process.exit(2)
}
const logFile = process.argv[3] ?? '/dev/null'

const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-bench-'))
// BENCH_CHAINGATE_CONFIG: JSON merged over this config's top level (bench/scale-out.bench.ts: database, redis).
const extra = JSON.parse(process.env.BENCH_CHAINGATE_CONFIG || '{}') as Record<string, unknown>
const configWith = (gatewayCaps: Record<string, number>) =>
  parseConfig({
    dataDir,
    gateway: { host: '127.0.0.1', port: 0, devAccount: { email: 'bench@localhost', plan: 'dev' }, ...gatewayCaps },
    networks: [{ name: BENCH_NETWORK, chainId: 31337, upstreams: upstream.split(',').map((url) => ({ url })) }],
    log: { level: 'info', requests: !process.env.BENCH_NO_LOG },
    ...extra,
  })
// The fan-out bench's thousands of subscribers use one key from one address: its WebSocket caps are lifted. A build
// from before those caps (BENCH_DIST_DIR) has no such settings, and none to lift.
const config = (() => {
  try {
    return configWith(WS_CAPS_LIFTED)
  } catch {
    return configWith({})
  }
})()
// The heap's growth factor, as `chaingate start` sets it (an older checkout, BENCH_FANOUT_BEFORE, has none).
const heap = (await import(`${from.dir}/app/heap-growth.${from.ext}`).catch(() => undefined)) as
  | typeof import('../src/app/heap-growth.ts')
  | undefined
// As in a `--workers` worker, which this process stands for.
heap?.applyHeapGrowing(heap.heapGrowingPercent(config.gateway.heapGrowingPercent ?? null, true))
// Asynchronous destination, as `chaingate start` uses for stdout: the formatting and write cost is real.
const destination = pino.destination({ dest: logFile, sync: false, mkdir: true })
const logger = createLogger('info', destination)

const started = await (async () => {
  const app = await startApp({ config, logger })
  try {
    // The bench key is the dev account's, made as `chaingate start` makes it. A build from before the small handle
    // (BENCH_DIST_DIR) has no app.ensureDevKey: there the function of the same name takes the app itself.
    const key =
      typeof app.ensureDevKey === 'function'
        ? await app.ensureDevKey()
        : await (
            (await import(`${from.dir}/app/parts/keys.${from.ext}`)) as typeof import('../src/app/parts/keys.ts')
          ).ensureDevKey(app as never)
    if (!key) throw new Error('no dev key')
    return { app, key }
  } catch (err) {
    await app.stop()
    throw err
  }
})().catch((err: unknown) => {
  console.error('chaingate did not start:', err)
  rmSync(dataDir, { recursive: true, force: true })
  process.exit(1)
})
const { app, key } = started

let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  const force = setTimeout(() => {
    rmSync(dataDir, { recursive: true, force: true })
    process.exit(1)
  }, 5000)
  force.unref()
  void app
    .stop()
    .catch(() => undefined)
    .finally(() => {
      try {
        destination.flushSync()
      } catch {}
      rmSync(dataDir, { recursive: true, force: true })
      process.exit(0) // a normal exit, so `node --cpu-prof` writes its profile
    })
}
process.on('SIGTERM', stop)
// SIGUSR2: where the memory is (RSS, V8 heap spaces, buffers), one JSON line on stderr (docs/benchmarks.md, "Memory").
process.on('SIGUSR2', async () => {
  const v8 = await import('node:v8')
  const MiB = (n: number) => Math.round(n / 2 ** 20)
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, MiB(s.space_used_size)]))
  const m = process.memoryUsage()
  const memory = { rss: MiB(m.rss), heapTotal: MiB(m.heapTotal), heapUsed: MiB(m.heapUsed), external: MiB(m.external) }
  process.stderr.write(`${JSON.stringify({ memory: { ...memory, arrayBuffers: MiB(m.arrayBuffers), spaces } })}\n`)
})
process.on('SIGINT', stop)
process.stdin.on('end', stop)
process.stdin.on('error', stop)
process.stdin.resume()

process.stdout.write(
  `${JSON.stringify({ url: `${app.url}/networks/${BENCH_NETWORK}/v3/${key.key}`, gateway: app.url })}\n`,
)
