import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { type RunningAnvil, startAnvil } from './anvil.ts'
import { AnvilError } from './errors.ts'

const running = new Set<RunningAnvil>()
const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-anvil-test-'))

async function start(options: Parameters<typeof startAnvil>[0]): Promise<RunningAnvil> {
  const anvil = await startAnvil(options)
  running.add(anvil)
  return anvil
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result: T; error?: unknown }
  if (body.error) throw new Error(JSON.stringify(body.error))
  return body.result
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw error
  }
}

async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return !isAlive(pid)
}

afterEach(async () => {
  await Promise.all([...running].map((anvil) => anvil.stop()))
  running.clear()
})
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe('startAnvil', () => {
  test('answers eth_chainId with the configured id over http and accepts a ws connection', async () => {
    const anvil = await start({ chainId: 424242, port: 0, blockTimeSeconds: 0 })
    expect(anvil.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(await rpc<string>(anvil.url, 'eth_chainId')).toBe('0x67932')

    const ws = new WebSocket(anvil.wsUrl)
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
      const reply = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))))
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }))
      expect(JSON.parse(await reply)).toMatchObject({ id: 7, result: '0x67932' })
    } finally {
      ws.close()
    }
  })

  test('runs two chains with different chain ids at once', async () => {
    const [a, b] = await Promise.all([
      start({ chainId: 31337, port: 0, blockTimeSeconds: 0 }),
      start({ chainId: 31338, port: 0, blockTimeSeconds: 0 }),
    ])
    expect(a.url).not.toBe(b.url)
    expect(await rpc<string>(a.url, 'eth_chainId')).toBe('0x7a69')
    expect(await rpc<string>(b.url, 'eth_chainId')).toBe('0x7a6a')
  })

  test('keeps chain state across a graceful restart with the same state file', async () => {
    const stateFile = join(dataDir, 'restart.json')
    const first = await start({ chainId: 1337, port: 0, blockTimeSeconds: 0, stateFile })
    await rpc(first.url, 'anvil_mine', ['0x5'])
    expect(await rpc<string>(first.url, 'eth_blockNumber')).toBe('0x5')
    await first.stop()

    const second = await start({ chainId: 1337, port: 0, blockTimeSeconds: 0, stateFile })
    expect(await rpc<string>(second.url, 'eth_blockNumber')).toBe('0x5')
  })

  test('periodic state dump survives anvil being killed, and onExit reports the unexpected death', async () => {
    const stateFile = join(dataDir, 'crash.json')
    const first = await start({ chainId: 1338, port: 0, blockTimeSeconds: 0, stateFile })
    const died = new Promise<[number | null, string | null]>((resolve) =>
      first.onExit((code, signal) => resolve([code, signal])),
    )
    await rpc(first.url, 'anvil_mine', ['0x3'])
    await new Promise((resolve) => setTimeout(resolve, 6_000)) // > the 5 s state interval
    process.kill(first.pid, 'SIGKILL')
    expect(await died).toEqual([null, 'SIGKILL'])

    const second = await start({ chainId: 1338, port: 0, blockTimeSeconds: 0, stateFile })
    expect(await rpc<string>(second.url, 'eth_blockNumber')).toBe('0x3')
  }, 20_000)

  test('stop ends the anvil process and is idempotent', async () => {
    const anvil = await start({ chainId: 31339, port: 0, blockTimeSeconds: 0 })
    expect(isAlive(anvil.pid)).toBe(true)
    await Promise.all([anvil.stop(), anvil.stop()])
    expect(isAlive(anvil.pid)).toBe(false)
    await anvil.stop()
  })

  test('SIGKILL of the parent process leaves no anvil behind', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/start-anvil-child.ts', import.meta.url))
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, '31340'], { stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let text = ''
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8')
          if (text.includes('\n')) resolve(text.split('\n')[0] ?? '')
        })
        child.once('exit', (code) => reject(new Error(`fixture exited early with ${code}`)))
      })
      const { pid, url } = JSON.parse(line) as { pid: number; url: string }
      expect(await rpc<string>(url, 'eth_chainId')).toBe('0x7a6c')

      child.kill('SIGKILL')
      expect(await waitUntilGone(pid, 5_000)).toBe(true)
    } finally {
      child.kill('SIGKILL')
    }
  })

  test('rejects with ANVIL_PORT_IN_USE when the fixed port is taken', async () => {
    const blocker: Server = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const { port } = blocker.address() as { port: number }
    try {
      const error = await startAnvil({ chainId: 31341, port, blockTimeSeconds: 0 }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(AnvilError)
      expect((error as AnvilError).code).toBe('ANVIL_PORT_IN_USE')
    } finally {
      blocker.close()
    }
  })

  test('rejects with ANVIL_EXITED and anvil output when anvil cannot start', async () => {
    const stateFile = join(dataDir, 'corrupt.json')
    writeFileSync(stateFile, '{"block": {"num')
    const error = await startAnvil({ chainId: 31342, port: 0, blockTimeSeconds: 0, stateFile }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AnvilError)
    expect((error as AnvilError).code).toBe('ANVIL_EXITED')
    expect((error as AnvilError).output).toContain('corrupt.json')
  })
})
