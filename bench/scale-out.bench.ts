/**
 * `npm run bench:scale-out`: what shared state costs (docs/scale-out.md, docs/benchmarks.md). One anvil node, the
 * same load on each target, one after another, in the same run:
 *   (b) bench/minimal-proxy.ts — node:http + undici, nothing else;
 *   (e) chaingate on embedded defaults — SQLite, in-process counters;
 *   (r) chaingate on PostgreSQL + Redis with exact shared credits, leases (redis.leaseCredits, default 1000);
 *   (p) the same with one Redis round trip per call (redis.leaseCredits 0).
 * Each target is its own process (bench/run-chaingate.ts with BENCH_CHAINGATE_CONFIG). Targets alternate order
 * between rounds; the best round of each is reported. The target is r/b (and r/e): 0.8.
 *
 * Needs PostgreSQL and Redis (BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test; BENCH_REDIS_URL,
 * default redis://127.0.0.1:6379). Without PostgreSQL, (r) and (p) run on SQLite + Redis and the table says so.
 * Settings: BENCH_CONNECTIONS (32), BENCH_DURATION s (5), BENCH_WARMUP s (2), BENCH_ROUNDS (2),
 * BENCH_TARGETS (b,e,r,p), BENCH_METHODS (blockNumber,blockLatest), BENCH_CACHE (off: chaingate forwards every
 * call like the minimal proxy, so only the per-call work differs; on: its cache and dedup answer what they can).
 */
import { randomBytes } from 'node:crypto'
import { availableParallelism, loadavg } from 'node:os'
import pg from 'pg'
import { startAnvil, type RunningAnvil } from '../src/upstreams/devnet/anvil.ts'
import { fmt, type LoadResult, loadSettings, loadTarget, post, rpcBody, spawnTarget, stopTargets } from './support.ts'

const {
  connections: CONNECTIONS,
  duration: DURATION,
  warmup: WARMUP,
  rounds: ROUNDS,
} = loadSettings({ connections: 32, duration: 5 })
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test'
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379'
const CACHE = process.env.BENCH_CACHE === 'on'

type TargetId = 'b' | 'e' | 'r' | 'p'
const NAMES: Record<TargetId, string> = {
  b: '(b) minimal proxy',
  e: '(e) chaingate, embedded',
  r: '(r) chaingate, PG+Redis, leases',
  p: '(p) chaingate, PG+Redis, per call',
}
const TARGETS = (process.env.BENCH_TARGETS ?? 'b,e,r,p')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is TargetId => s in NAMES)

const ALL_CASES = [
  { name: 'blockNumber', label: 'eth_blockNumber', body: rpcBody('eth_blockNumber', []) },
  {
    name: 'blockLatest',
    label: 'eth_getBlockByNumber ["latest",false]',
    body: rpcBody('eth_getBlockByNumber', ['latest', false]),
  },
]
const wanted = process.env.BENCH_METHODS?.split(',').map((s) => s.trim())
const CASES = wanted ? ALL_CASES.filter((c) => wanted.includes(c.name)) : ALL_CASES

const load = (url: string, body: string, seconds: number, pid: number) =>
  loadTarget(url, body, CONNECTIONS, seconds, pid)

async function check(url: string, body: string): Promise<void> {
  const { status, text } = await post(url, body)
  if (status !== 200 || !text.includes('"result"'))
    throw new Error(`${url} answered HTTP ${status}: ${text.slice(0, 200)}`)
}

/** A fresh PostgreSQL schema for one target, or undefined when PostgreSQL is not reachable. */
async function pgSchema(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
  } catch {
    return undefined
  }
  const schema = `bench_${randomBytes(5).toString('hex')}`
  await client.query(`create schema ${schema}`)
  await client.end()
  const u = new URL(POSTGRES_URL)
  u.searchParams.set('options', `-c search_path=${schema}`)
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL })
      await c.connect()
      await c.query(`drop schema if exists ${schema} cascade`)
      await c.end()
    },
  }
}

async function main(): Promise<void> {
  let anvil: RunningAnvil | undefined
  const drops: (() => Promise<void>)[] = []
  const cleanup = async () => {
    await stopTargets()
    await anvil?.stop()
    for (const d of drops) await d().catch(() => undefined)
  }
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)))
  try {
    anvil = await startAnvil({ chainId: 31337, port: 0, blockTimeSeconds: 0 })
    const prefix = `bench:${randomBytes(4).toString('hex')}:`
    let storage = 'PostgreSQL'
    const urls = {} as Record<TargetId, string>
    const pids = {} as Record<TargetId, number>
    for (const id of TARGETS) {
      if (id === 'b') {
        const c = await spawnTarget(NAMES.b, 'minimal-proxy.ts', [anvil.url], { timeoutMs: 60_000 })
        ;[urls.b, pids.b] = [c.info.url, c.process.pid!]
        continue
      }
      const extra: Record<string, unknown> = CACHE ? {} : { cache: { enabled: false, dedup: false } }
      if (id === 'r' || id === 'p') {
        const schema = await pgSchema()
        if (schema) {
          drops.push(schema.drop)
          extra.database = { url: schema.url }
        } else storage = 'SQLite (PostgreSQL unreachable)'
        extra.redis = { url: REDIS_URL, keyPrefix: `${prefix}${id}:`, ...(id === 'p' ? { leaseCredits: 0 } : {}) }
      }
      const c = await spawnTarget(NAMES[id], 'run-chaingate.ts', [anvil.url, '/dev/null'], {
        env: { BENCH_CHAINGATE_CONFIG: JSON.stringify(extra) },
        timeoutMs: 60_000,
      })
      ;[urls[id], pids[id]] = [c.info.url, c.process.pid!]
    }
    for (const id of TARGETS) for (const c of CASES) await check(urls[id], c.body)

    console.log(
      `scale-out benchmark: node ${process.version}, ${availableParallelism()} CPUs, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; ` +
        `${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per run, ${ROUNDS} round(s), best round ` +
        `reported; (r)/(p) storage: ${storage}; chaingate cache ${CACHE ? 'on' : 'off'}`,
    )
    const runs = new Map<string, LoadResult[]>()
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? TARGETS : [...TARGETS].reverse()
      for (const c of CASES)
        for (const id of order) {
          if (WARMUP > 0) await load(urls[id], c.body, WARMUP, pids[id])
          const m = await load(urls[id], c.body, DURATION, pids[id])
          runs.set(`${id}|${c.name}`, [...(runs.get(`${id}|${c.name}`) ?? []), m])
          console.log(
            `  round ${round + 1} ${NAMES[id].padEnd(34)} ${c.label.padEnd(38)} ${fmt(m.rps).padStart(7)} req/s  ` +
              `p50 ${m.p50} ms  p99 ${m.p99} ms  ${fmt(m.cpuUsPerRequest)} µs CPU/req${
                m.bad ? `  !! ${m.bad} failed` : ''
              }`,
          )
        }
    }
    const best = (id: TargetId, name: string) => runs.get(`${id}|${name}`)?.reduce((x, y) => (y.rps > x.rps ? y : x))
    console.log(
      '\n| target | method | req/s | p50 ms | p99 ms | CPU µs/req | /b | /e |\n|---|---|---:|---:|---:|---:|---:|---:|',
    )
    const verdicts: string[] = []
    for (const c of CASES) {
      const b = best('b', c.name)
      const e = best('e', c.name)
      for (const id of TARGETS) {
        const m = best(id, c.name)!
        const rb = b && id !== 'b' ? fmt(m.rps / b.rps, 2) : ''
        const re = e && id !== 'b' && id !== 'e' ? fmt(m.rps / e.rps, 2) : ''
        console.log(
          `| ${NAMES[id]} | ${c.label} | ${fmt(m.rps)} | ${m.p50} | ${m.p99} | ${fmt(m.cpuUsPerRequest)} | ${rb} | ` +
            `${re} |`,
        )
      }
      const r = best('r', c.name)
      if (r && b)
        verdicts.push(
          `${c.label}: r/b = ${(r.rps / b.rps).toFixed(2)} ${r.rps / b.rps >= 0.8 ? 'meets' : 'MISSES'} the 0.8 target${
            e ? `; r/e = ${(r.rps / e.rps).toFixed(2)}` : ''
          }`,
        )
    }
    console.log('')
    for (const v of verdicts) console.log(v)
  } finally {
    await cleanup()
  }
}

await main()
