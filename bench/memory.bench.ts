/**
 * `npm run bench:memory`: the resident memory (RSS) of `chaingate start --workers 2` under load (issue 19's goal:
 * ≤ 150 MiB per worker). The compiled dist/ (`npm run build`) on SQLite + Redis in front of one anvil; wrk (64
 * connections, `eth_getBalance` of a new address each call: never served from the cache, but each answer is stored,
 * so the answer cache grows towards `cache.maxBytes` the longer it runs) for BENCH_DURATION s. Every second it reads
 * each process's RSS from /proc (and its anonymous part: the heaps, not mapped files) and prints the peak and the last
 * reading per process, idle and under load, plus the readings over time (growth shows there).
 *
 * BENCH_TARGET=gateway measures the gateway alone instead (bench/run-chaingate.ts on dist/, one process, SQLite, no
 * Redis: the most calls per second on this machine, where growth under sustained load shows first); SIGUSR2 at the
 * end prints its heap breakdown.
 *
 * Settings: BENCH_DURATION s (15), BENCH_CONNECTIONS (64), BENCH_WORKERS (2), BENCH_REDIS_URL
 * (redis://127.0.0.1:6379), BENCH_CHAINGATE_CONFIG (JSON merged over the config's top level, e.g.
 * `{"requests":{"enabled":false}}`), BENCH_NODE_ARGS (node flags for `chaingate start`, which its workers inherit:
 * `--trace-gc`), BENCH_STDOUT (a file that gets chaingate's stdout, e.g. those traces).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startAnvil } from '../src/upstreams/devnet/anvil.ts'
import { alignColumns, descendants, envInt, fmt, spawnTarget, stopTargets } from './support.ts'
import { hasWrk, wrk } from './wrk.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const DURATION = envInt('BENCH_DURATION', 15)
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 64)
const WORKERS = envInt('BENCH_WORKERS', 2)
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379'
const EXTRA = JSON.parse(process.env.BENCH_CHAINGATE_CONFIG || '{}') as Record<string, unknown>
const MiB = 2 ** 20
const TARGET = process.env.BENCH_TARGET === 'gateway' ? 'gateway' : 'start'
const STDOUT_FILE = process.env.BENCH_STDOUT
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')

/** RSS and its anonymous part, MiB (/proc/<pid>/status); undefined once the process is gone. */
function rss(pid: number): { rss: number; anon: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
    return { rss: (kb('VmRSS') * 1024) / MiB, anon: (kb('RssAnon') * 1024) / MiB }
  } catch {
    return undefined
  }
}

async function start(anvilUrl: string, dir: string): Promise<{ child: ChildProcess; url: string }> {
  const configFile = join(dir, 'chaingate.json')
  writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { port: 0 },
      networks: [{ name: 'bench', chainId: 31337, upstreams: [{ url: anvilUrl }] }],
      wallet: { enabled: false },
      redis: { url: REDIS_URL, keyPrefix: `bench-memory-${randomBytes(4).toString('hex')}:` },
      log: { destination: 'file' },
      ...EXTRA,
    }),
  )
  const args = ['start', '--config', configFile, '--data-dir', join(dir, 'data'), '--workers', String(WORKERS)]
  const child = spawn(process.execPath, [...NODE_ARGS, join(root, 'bin', 'chaingate.mjs'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString()
    if (STDOUT_FILE) appendFileSync(STDOUT_FILE, c)
  })
  const deadline = Date.now() + 120_000
  while (!out.includes('Ctrl-C stops everything.') || (WORKERS > 1 && !out.includes('workers:'))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`chaingate did not start:\n${out}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const gateway = /^\s+gateway:\s+(\S+)$/m.exec(out)?.[1]
  const key = /dev API key: (\S+)/.exec(out)?.[1]
  if (!gateway || !key) throw new Error(`no gateway URL or dev key in the banner:\n${out}`)
  return { child, url: `${gateway}/networks/bench/v3/${key}` }
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first')
  if (!hasWrk()) throw new Error('wrk is needed (apt-get install -y wrk)')
  const anvil = await startAnvil({ chainId: 31337, port: 0, blockTimeSeconds: 0 })
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-bench-memory-'))
  let child: ChildProcess | undefined
  try {
    const started =
      TARGET === 'start'
        ? await start(anvil.url, dir)
        : await spawnTarget('chaingate', 'run-chaingate.ts', [anvil.url], { env: { BENCH_DIST: '1' } }).then((t) => ({
            child: t.process,
            url: t.info.url,
          }))
    child = started.child
    await new Promise((r) => setTimeout(r, 3000)) // settle after start
    const primary = child.pid!
    const pids = [primary, ...descendants(primary)]
    const name = (pid: number) =>
      pid === primary ? (TARGET === 'start' ? 'primary' : 'gateway') : `worker ${pids.indexOf(pid)}`
    const idle = new Map(pids.map((p) => [p, rss(p)]))
    const series = new Map<number, number[]>(pids.map((p) => [p, []]))
    const peak = new Map<number, { rss: number; anon: number }>()
    const sampler = setInterval(() => {
      for (const p of pids) {
        const m = rss(p)
        if (!m) continue
        series.get(p)!.push(m.rss)
        const top = peak.get(p)
        if (!top || top.rss < m.rss) peak.set(p, m)
      }
    }, 1000)
    const load = await wrk(started.url, { kind: 'newAddress' }, { connections: CONNECTIONS, seconds: DURATION })
    clearInterval(sampler)
    console.log(
      `memory benchmark: node ${process.version}, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; ${
        TARGET === 'start'
          ? `chaingate start --workers ${WORKERS} (dist/, SQLite + Redis)`
          : 'the gateway alone (dist/)'
      }, uncached eth_getBalance, ` +
        `${CONNECTIONS} connections, ${DURATION} s: ${fmt(load.rps)} calls/s, errors ${load.errors + load.non2xx}`,
    )
    const rows = [['process', 'idle RSS', 'idle anon', 'peak RSS', 'peak anon', 'last RSS']]
    for (const p of pids) {
      const s = series.get(p)!
      rows.push([
        name(p),
        fmt(idle.get(p)?.rss ?? Number.NaN, 1),
        fmt(idle.get(p)?.anon ?? Number.NaN, 1),
        fmt(peak.get(p)?.rss ?? Number.NaN, 1),
        fmt(peak.get(p)?.anon ?? Number.NaN, 1),
        fmt(s.at(-1) ?? Number.NaN, 1),
      ])
    }
    for (const r of alignColumns(rows, 1).cells) console.log(`  ${r.join('  ')}`)
    console.log('RSS MiB each second:')
    for (const p of pids)
      console.log(
        `  ${name(p)}: ${series
          .get(p)!
          .map((v) => Math.round(v))
          .join(' ')}`,
      )
    if (TARGET === 'gateway') {
      child.kill('SIGUSR2') // its heap breakdown on stderr
      await new Promise((r) => setTimeout(r, 500))
    }
  } finally {
    await stopTargets()
    if (child && child.exitCode === null) {
      child.kill('SIGTERM')
      await new Promise((r) => (child!.exitCode !== null ? r(undefined) : child!.once('exit', r)))
    }
    await anvil.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
