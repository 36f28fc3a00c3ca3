/**
 * `chaingate start` as a real process: the banner (version, log file, block time, the URL form that works here
 * first), request lines in <dataDir>/logs/chaingate.log (0600 in a 0700 dir) or on stdout with --log-requests
 * stdout, the data-dir lock (a second start names the pid; a stale lock is taken over), and a busy port refused in
 * one line before anything starts (no anvil left behind).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { resolves } from '../../src/networks/name-resolution.ts'
import {
  BANNER_END,
  chainProcesses,
  cleanupProcesses,
  removeDirs,
  rpc,
  runCli,
  sleep,
  startChaingate,
  tempDir,
  waitFor,
  writeConfig,
} from './helpers/process.ts'

const dirs: string[] = []
const dataDirs: string[] = []
const newDir = () => {
  const d = tempDir('chaingate-start-')
  dirs.push(d)
  dataDirs.push(join(d, 'data'))
  return d
}
const config = (dir: string, extra: Record<string, unknown> = {}) =>
  writeConfig(dir, 'chaingate.yaml', {
    gateway: { port: 0 },
    networks: [
      { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
      { name: 'slow', chainId: 31339, embedded: { port: 0, blockTimeSeconds: 7 } },
    ],
    wallet: { enabled: false },
    ...extra,
  })

/** A pid that surely does not run: a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  return Number(r.stdout)
}

function occupy(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }))
  })
}

// Generous waits: the machine that runs the suite may be loaded (each start spawns anvils and a database).
describe('chaingate start', { timeout: 240_000 }, () => {
  afterAll(async () => {
    await cleanupProcesses(dataDirs)
    removeDirs(dirs)
  }, 60_000)

  it('prints the banner, writes request lines to the log file, and holds the data dir against a second start', async () => {
    const dir = newDir()
    const data = join(dir, 'data')
    // A lock left by a process that died (kill -9, crash) does not block the start.
    mkdirSync(data, { recursive: true })
    writeFileSync(join(data, 'chaingate.lock'), `${deadPid()}\n`)
    const file = config(dir)
    const cg = await startChaingate(['--config', file, '--data-dir', data], { timeoutMs: 90_000 })
    const out = cg.stdout()
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
    expect(out).toContain(`chaingate ${version} is running`)
    const logFile = join(data, 'logs', 'chaingate.log')
    expect(out).toContain(`  log:       ${logFile} (request lines; --log-requests stdout shows them here)`)
    expect(out).toMatch(
      new RegExp(
        String.raw`network devnet-a \(chain 31337\).*\n\s+embedded anvil: blocks mined on each transaction ` +
          String.raw`\(the block number stays 0 until one arrives\); dev methods on`,
      ),
    )
    expect(out).toMatch(/network slow \(chain 31339\).*\n\s+embedded anvil: a block every 7 s/)
    // The URL form that works from Node on this machine comes first; the other one is beside it.
    const hostWorks = await resolves('devnet-a.localhost')
    const port = new URL(cg.banner.gatewayUrl).port
    const path = `${cg.banner.gatewayUrl}/networks/devnet-a/v3/${cg.banner.devKey}`
    const host = `http://devnet-a.localhost:${port}/v3/${cg.banner.devKey}`
    expect(cg.banner.endpoints['devnet-a']).toBe(hostWorks ? host : path)
    expect(out).toContain(hostWorks ? `path form: ${path}` : `host form: ${host}`)
    if (!hostWorks)
      expect(out).toContain('(path form first: devnet-a.localhost, slow.localhost do not resolve on this machine')
    expect(readFileSync(join(data, 'chaingate.lock'), 'utf8').trim()).toBe(String(cg.pid))

    // Request lines go to the file, not the terminal.
    expect((await rpc(path, 'eth_chainId')).json().result).toBe('0x7a69')
    const line = await waitFor(
      () =>
        readFileSync(logFile, 'utf8')
          .split('\n')
          .find((l) => l.includes('"method":"eth_chainId"')),
      15_000,
      'the request line in the log file',
    )
    expect(JSON.parse(line)).toMatchObject({ msg: 'rpc', network: 'devnet-a', method: 'eth_chainId', status: 200 })
    expect(statSync(logFile).mode & 0o777).toBe(0o600)
    expect(statSync(join(data, 'logs')).mode & 0o777).toBe(0o700)
    await sleep(300)
    expect(cg.stdout()).not.toContain('"msg":"rpc"')
    expect(cg.stderr()).toBe('')

    // A second start on the same data dir: one line naming the pid, and nothing started.
    const chainsBefore = chainProcesses(data)
      .map((p) => p.pid)
      .sort()
    const second = await runCli(['start', '--config', file, '--data-dir', data], { timeoutMs: 60_000 })
    expect(second.code).toBe(1)
    expect(second.stderr).toBe(
      `error: the data dir ${data} is in use by another chaingate (pid ${cg.pid}); stop it first, or use another ` +
        `--data-dir (if pid ${cg.pid} is not chaingate, delete ${join(data, 'chaingate.lock')})\n`,
    )
    expect(
      chainProcesses(data)
        .map((p) => p.pid)
        .sort(),
    ).toEqual(chainsBefore) // the first server's chains only
    expect((await cg.signal('SIGTERM')).code).toBe(0)
    expect(existsSync(join(data, 'chaingate.lock'))).toBe(false)
  })

  it('--log-requests stdout prints request lines on stdout, pure JSON lines, and the banner on stderr', async () => {
    const dir = newDir()
    const cg = await startChaingate(
      ['--config', config(dir), '--data-dir', join(dir, 'data'), '--log-requests', 'stdout'],
      { timeoutMs: 90_000 },
    )
    expect(cg.stderr()).toContain(BANNER_END)
    expect(cg.bannerText()).not.toContain('  log:')
    await rpc(`${cg.banner.gatewayUrl}/networks/devnet-a/v3/${cg.banner.devKey}`, 'eth_chainId')
    await waitFor(() => cg.stdout().includes('"method":"eth_chainId"'), 15_000, 'the request line on stdout')
    // What a log shipper reads: every stdout line is one JSON object, the banner nowhere in it.
    const lines = cg
      .stdout()
      .split('\n')
      .filter((l) => l !== '')
    expect(lines.length).toBeGreaterThan(1)
    for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow()
    expect(cg.stdout()).not.toContain(BANNER_END)
    expect((await cg.signal('SIGTERM')).code).toBe(0)
  })

  it('a port in use is one line naming the port and its config key, before any chain or database starts', async () => {
    const busy = await occupy()
    try {
      const cases: [string[], Record<string, unknown>, string][] = [
        [
          ['--port', String(busy.port)],
          {},
          `port ${busy.port} is already in use (gateway.port in the config, or --port); stop the other process or ` +
            'choose another port',
        ],
        [
          [],
          { networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: busy.port } }] },
          `port ${busy.port} is already in use (networks[0].embedded.port (devnet-a) in the config); stop the other ` +
            'process or choose another port',
        ],
        [
          [],
          { wallet: { enabled: true, port: busy.port } },
          `port ${busy.port} is already in use (wallet.port in the config); stop the other process or choose another ` +
            'port',
        ],
      ]
      for (const [args, extra, message] of cases) {
        const dir = newDir()
        const data = join(dir, 'data')
        const r = await runCli(['start', '--config', config(dir, extra), '--data-dir', data, ...args], {
          timeoutMs: 60_000,
        })
        // The holder is this test's own process, named by its program file (argv[0]) as /proc gives it.
        const argv0 = readFileSync(`/proc/${process.pid}/cmdline`, 'utf8').split('\0')[0] ?? ''
        const holder = `; held by pid ${process.pid} (${argv0.slice(argv0.lastIndexOf('/') + 1)})`
        expect([r.code, r.stderr]).toEqual([1, `error: ${message}${holder}\n`])
        expect(chainProcesses(data)).toEqual([])
        expect(existsSync(join(data, 'chains'))).toBe(false)
        expect(existsSync(join(data, 'chaingate.sqlite'))).toBe(false)
        expect(existsSync(join(data, 'chaingate.lock'))).toBe(false)
      }
    } finally {
      busy.server.close()
    }
  })

  it('a malformed OTEL_EXPORTER_OTLP_HEADERS refuses the start like a config error, naming it, not its value', async () => {
    const dir = newDir()
    const data = join(dir, 'data')
    for (const [headers, why] of [
      ['authorization=Bearer%ZZsecret-token', 'entry 1 of 1 has a malformed percent-encoding'],
      ['x-tenant=a,secret-token-without-a-key', 'entry 2 of 2 is not key=value'],
    ]) {
      const r = await runCli(['start', '--config', config(dir), '--data-dir', data], {
        timeoutMs: 60_000,
        env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_HEADERS: headers! },
      })
      expect([r.code, r.stderr]).toEqual([
        1,
        'invalid config (environment):\n' +
          `  - OTEL_EXPORTER_OTLP_HEADERS: ${why} (comma-separated key=value pairs, percent-encoded)\n`,
      ])
      expect(r.stderr + r.stdout).not.toContain('secret-token')
      expect(chainProcesses(data)).toEqual([])
    }
  })
})
