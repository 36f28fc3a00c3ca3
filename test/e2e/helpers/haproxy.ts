/**
 * The shipped HAProxy config (deploy/haproxy/haproxy.cfg) in front of test replicas: `haproxy -db` with the
 * environment the file documents, on a free port. Callers guard their suite with `'haproxy'`
 * (../../support/programs.ts): skipped when it is not installed, failed under CHAINGATE_REQUIRE_SERVICES=1 (`.ci/run`
 * installs it).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, Socket } from 'node:net'
import { join } from 'node:path'
import { ROOT, waitFor } from './process.ts'
import { programPath } from '../../support/programs.ts'

export const HAPROXY_CFG = join(ROOT, 'deploy', 'haproxy', 'haproxy.cfg')

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = new Socket()
    s.once('error', () => resolve(false))
    s.connect(port, '127.0.0.1', () => {
      s.destroy()
      resolve(true)
    })
  })

export interface Haproxy {
  url: string
  output(): string
  stop(): Promise<void>
}

/** HAProxy with deploy/haproxy/haproxy.cfg in front of `replicas` (host:port; the file has two server lines). */
export async function startHaproxy(replicas: [string, string], token = ''): Promise<Haproxy> {
  const port = await freePort()
  const child: ChildProcess = spawn(programPath('haproxy'), ['-db', '-f', HAPROXY_CFG], {
    env: {
      ...process.env,
      CHAINGATE_LB_BIND: `127.0.0.1:${port}`,
      CHAINGATE_REPLICA_1: replicas[0],
      CHAINGATE_REPLICA_2: replicas[1],
      CHAINGATE_OPERATIONS_TOKEN: token,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`haproxy exited ${child.exitCode}: ${out}`)
      return accepts(port)
    },
    10_000,
    'haproxy',
  )
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    },
  }
}
