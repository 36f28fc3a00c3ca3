/**
 * The anvil child process's plumbing for src/upstreams/devnet/anvil.ts: its output and pid, its exit status, the
 * readiness
 * check (eth_chainId answers the expected chain id) and the port checks before spawning.
 */
import type { ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { constants as osConstants } from 'node:os'
import type { Readable } from 'node:stream'
import { AnvilError } from './errors.ts'

const HEALTH_POLL_MS = 100
const OUTPUT_LINES_KEPT = 30

/** Keeps the last lines of anvil's stdout+stderr (both must be drained anyway, or anvil blocks on a full pipe). */
export function collectOutput(child: ChildProcess): () => string {
  const lines: string[] = []
  const onData = (chunk: Buffer) => {
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    )
    if (lines.length > OUTPUT_LINES_KEPT) lines.splice(0, lines.length - OUTPUT_LINES_KEPT)
  }
  child.stdout?.on('data', onData)
  child.stderr?.on('data', onData)
  return () => lines.join('\n')
}

export function readPid(stream: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = ''
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8')
    })
    stream.on('error', reject)
    stream.on('close', () => {
      const pid = Number.parseInt(text.trim(), 10)
      if (Number.isInteger(pid) && pid > 0) resolve(pid)
      else reject(new AnvilError('ANVIL_EXITED', `anvil guard did not report a pid (got ${JSON.stringify(text)})`))
    })
  })
}

/** The guard exits with 128+N when anvil died of signal N; report that as the signal. */
export function exitStatus(
  code: number | null,
  signal: NodeJS.Signals | null,
): { code: number | null; signal: string | null } {
  if (signal) return { code, signal }
  if (code !== null && code > 128) {
    const name = Object.entries(osConstants.signals).find(([, n]) => n === code - 128)?.[0]
    if (name) return { code: null, signal: name }
  }
  return { code, signal: null }
}

export async function waitHealthy(
  url: string,
  chainId: number,
  timeoutMs: number,
  hasExited: () => boolean,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let lastProblem = 'no answer yet'
  while (!hasExited()) {
    if (Date.now() > deadline) {
      throw new AnvilError('ANVIL_START_TIMEOUT', `anvil at ${url} not healthy after ${timeoutMs} ms: ${lastProblem}`)
    }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        signal: AbortSignal.timeout(Math.max(100, Math.min(2_000, deadline - Date.now()))),
      })
      const body = (await response.json()) as { result?: string }
      const answered = body.result === undefined ? Number.NaN : Number.parseInt(body.result, 16)
      if (answered === chainId) return
      lastProblem = `eth_chainId answered ${JSON.stringify(body.result)}, expected ${chainId}`
    } catch (error) {
      lastProblem = String((error as Error).cause ?? error)
    }
    await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS))
  }
  throw new Error('exited')
}

export function pickFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, host, () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

/**
 * A fixed port held by another process (maybe another anvil with the same chain id) could pass our health check
 * before our anvil fails to bind, so check first and fail with a clear error.
 */
export function assertPortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new AnvilError('ANVIL_PORT_IN_USE', `anvil port ${host}:${port} is already in use`)
          : error,
      ),
    )
    server.listen(port, host, () => server.close(() => resolve()))
  })
}

export function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {}
}
