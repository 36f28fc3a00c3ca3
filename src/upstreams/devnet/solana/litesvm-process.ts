/**
 * Starts the LiteSVM devnet's process (server.ts) and reads its ready line (its port, and PubSub's when port + 1
 * was free).
 */
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { collectOutput } from '../process.ts'
import { SolanaDevnetError } from './errors.ts'
import { SOLANA_FUNDED_LAMPORTS, type SolanaAccount } from './keys.ts'
import { type Launched, type SolanaDevnetOptions, watchExit } from './launched.ts'

/** The child runs from dist/ as JavaScript, or from src/ through tsx (tests, CHAINGATE_RUN_SOURCES). */
function serverCommand(): string[] {
  const here = fileURLToPath(import.meta.url)
  if (!here.endsWith('.ts')) return [join(dirname(here), 'server.js')]
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  return ['--import', tsx, join(dirname(here), 'server.ts')]
}

function firstLine(stream: Readable): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = ''
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8')
      const end = text.indexOf('\n')
      if (end !== -1) {
        stream.off('data', onData)
        resolve(text.slice(0, end))
      }
    }
    stream.on('data', onData)
    stream.once('close', () => resolve(undefined))
  })
}

export async function launchLiteSvm(
  options: SolanaDevnetOptions,
  accounts: SolanaAccount[],
  host: string,
): Promise<Launched> {
  const args = ['--host', host, '--port', String(options.port), '--slot-ms', String(options.slotMs ?? 400)]
  if (options.stateFile) args.push('--state', options.stateFile)
  args.push('--fund', accounts.map((a) => a.address).join(','), '--fund-lamports', String(SOLANA_FUNDED_LAMPORTS))
  // Its own process group: a terminal's Ctrl-C reaches chaingate only, which stops the devnet itself. Its stdin
  // is a pipe only we hold: it exits when that closes (stop(), or chaingate's death).
  const child = spawn(process.execPath, [...serverCommand(), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  })
  child.stdin?.on('error', () => {}) // EPIPE after the child is gone is expected
  const output = collectOutput(child)
  const { exited, hasExited } = watchExit(child)
  const timeoutMs = options.startTimeoutMs ?? 30_000
  let timer: NodeJS.Timeout | undefined
  const line = await Promise.race([
    firstLine(child.stdout as Readable),
    exited.then(() => undefined),
    new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    }),
  ])
  clearTimeout(timer)
  const fail = async (code: 'SOLANA_DEVNET_START_TIMEOUT' | 'SOLANA_DEVNET_EXITED', message: string) => {
    child.kill('SIGKILL')
    const status = await exited
    const lines = output()
    if (/address already in use/i.test(lines))
      throw new SolanaDevnetError(
        'SOLANA_DEVNET_PORT_IN_USE',
        `solana devnet port ${host}:${options.port} is already in use`,
        lines,
      )
    throw new SolanaDevnetError(code, `${message} (code ${status.code}, signal ${status.signal})`, lines)
  }
  if (line === 'timeout')
    return fail('SOLANA_DEVNET_START_TIMEOUT', `solana devnet did not start within ${timeoutMs} ms`)
  let ready: { port?: number; pubsubPort?: number | null } = {}
  try {
    ready = line ? JSON.parse(line) : {}
  } catch {}
  if (!ready.port || child.pid === undefined) return fail('SOLANA_DEVNET_EXITED', 'solana devnet exited during start')
  return {
    child,
    pid: child.pid,
    port: ready.port,
    pubsubPort: ready.pubsubPort ?? undefined,
    output,
    exited,
    hasExited,
    requestStop: () => child.stdin?.end(),
    kill: () => child.kill('SIGKILL'),
  }
}
