/**
 * bench/fanout.bench.ts with BENCH_FANOUT_WORKERS: chaingate as `chaingate start --workers N` (a checkout's
 * bin/chaingate.mjs run from its sources; Redis at 127.0.0.1:6379 for the shared counters), and how many of the
 * WebSocket connections each worker accepted (from `ss`: the processes holding the gateway port's connections).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Gateway {
  /** The HTTP endpoint with the key: http://host:port/networks/bench/v3/<key>. */
  url: string
  /** The processes that serve its connections. */
  pids(): number[]
  stop(): Promise<void>
}

/** Established connections to the gateway's port per serving process (pid: count). */
function perProcess(url: string): Map<number, number> {
  const port = new URL(url).port
  const out = execFileSync('ss', ['-tnpH', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' })
  const counts = new Map<number, number>()
  for (const m of out.matchAll(/pid=(\d+)/g)) counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + 1)
  return counts
}

export const connectionsPerProcess = (url: string) => [...perProcess(url)].map(([pid, n]) => `pid ${pid}: ${n}`)

export async function startWorkers(checkout: string, workers: number, networks: unknown[]): Promise<Gateway> {
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-bench-fanout-'))
  const configFile = join(dir, 'chaingate.json')
  writeFileSync(
    configFile,
    JSON.stringify({
      // Thousands of subscribers on one key from one address: the WebSocket caps lifted (an older checkout has none).
      gateway: {
        port: 0,
        ...(readFileSync(join(checkout, 'src', 'config', 'schema.ts'), 'utf8').includes('maxWsConnectionsPerAddress')
          ? {
              maxWsConnectionsPerKey: 1_000_000,
              maxWsConnectionsPerAddress: 1_000_000,
              maxSubscriptionsPerKey: 10_000_000,
            }
          : {}),
      },
      networks,
      wallet: { enabled: false },
      redis: { url: 'redis://127.0.0.1:6379', keyPrefix: `bench-fanout-${randomBytes(4).toString('hex')}:` },
      log: { destination: 'file' },
    }),
  )
  const args = ['start', '--config', configFile, '--data-dir', join(dir, 'data'), '--workers', String(workers)]
  const child: ChildProcess = spawn(process.execPath, [join(checkout, 'bin', 'chaingate.mjs'), ...args], {
    cwd: checkout,
    env: { ...process.env, CHAINGATE_RUN_SOURCES: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  const deadline = Date.now() + 120_000
  while (!out.includes('Ctrl-C stops everything.') || !out.includes('workers:')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`chaingate did not start:\n${out}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const gateway = /^\s+gateway:\s+(\S+)$/m.exec(out)?.[1]
  const key = /dev API key: (\S+)/.exec(out)?.[1]
  if (!gateway || !key) throw new Error(`no gateway URL or dev key in the banner:\n${out}`)
  const url = `${gateway}/networks/bench/v3/${key}`
  return {
    url,
    pids: () => [...perProcess(url).keys()],
    async stop() {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
