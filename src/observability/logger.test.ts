import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { createLineEncoder, lineText } from './log-line.ts'
import { createLogger, createRequestLines, type RequestLines } from './logger.ts'

interface RequestLine {
  keyId: string | undefined
  network: string
  method: string
  calls: number
  status: number
  credits: number
  ms: number
  source?: 'cache' | 'dedup' | undefined
}
const write = (log: RequestLines, l: RequestLine) =>
  log.write(l.keyId, l.network, l.method, l.calls, l.status, l.credits, l.ms, l.source)

function setup(capacity?: number) {
  const writes: string[] = []
  const logger = createLogger('info', { write: (s: string) => void writes.push(s) })
  const log = createRequestLines(logger, 20, capacity)
  const lines = () =>
    writes
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
  return { writes, log, lines }
}
const line = (over: Partial<RequestLine> = {}): RequestLine => ({
  keyId: 'abc123',
  network: 'devnet-a',
  method: 'eth_chainId',
  calls: 1,
  status: 200,
  credits: 80,
  ms: 1.2,
  ...over,
})

describe('request lines', () => {
  it('batches lines and writes them as pino-shaped JSON after the flush interval', async () => {
    const { writes, log, lines } = setup()
    write(log, line())
    write(log, line({ keyId: undefined, status: 401, credits: 0 }))
    expect(writes).toHaveLength(0)
    await new Promise((r) => setTimeout(r, 60))
    expect(writes).toHaveLength(1)
    const [a, b] = lines()
    expect(a).toMatchObject({
      level: 30,
      keyId: 'abc123',
      network: 'devnet-a',
      method: 'eth_chainId',
      calls: 1,
      status: 200,
      credits: 80,
      ms: 1.2,
      msg: 'rpc',
    })
    expect(typeof a!.time).toBe('number')
    expect(b).not.toHaveProperty('keyId')
    expect(b).toMatchObject({ status: 401, credits: 0 })
  })

  it('escapes and shortens what the client chose as a method name, keeping UTF-8 intact', () => {
    const { log, lines } = setup()
    write(log, line({ method: 'eth_"quoted"\n\u00e9\u4e2d' }))
    write(log, line({ method: 'x'.repeat(10_000) }))
    log.flush()
    const [a, b] = lines()
    expect(a!.method).toBe('eth_"quoted"\n\u00e9\u4e2d')
    expect(b!.method).toBe(`${'x'.repeat(128)}…`)
  })

  it('flushes when the buffer is full and loses no line', () => {
    const { writes, log, lines } = setup(1024)
    for (let i = 0; i < 100; i++) write(log, line({ calls: i }))
    log.flush()
    expect(writes.length).toBeGreaterThan(5)
    expect(lines().map((l) => l.calls)).toEqual([...Array(100).keys()])
  })

  it('writes the bytes of the text line for any values, and a line larger than the buffer on its own', () => {
    const encode = createLineEncoder()
    const buffer = Buffer.alloc(4096)
    const methods = [
      'eth_chainId',
      'batch',
      '(invalid)',
      'eth_"q"\\\n\u00e9\u4e2d\ud83d\ude00',
      'y'.repeat(129),
      'z'.repeat(128),
    ]
    const numbers = [0, -0, 1, 9, 10, 99, 100, 80, 1234567, 2 ** 53 - 1, 2 ** 53, 2.5, -3, 1e21, Number.NaN]
    // Around the eight-digit split: zeros inside the low half.
    numbers.push(99_999_999, 100_000_000, 100_000_007, 1e15 + 3, 123_400_000_056)
    const times = [0, 0.04, 0.05, 0.25, 0.3, 1.15, 9.96, 12, 12.5, 1e6 + 0.35, 123456.789]
    let n = 0
    for (const method of methods)
      for (const calls of numbers)
        for (const ms of times) {
          const keyId = n % 3 === 0 ? undefined : `key-${n % 5}`
          const source = (['cache', 'dedup', undefined] as const)[n % 3]
          const time = 1_764_161_234_567 + n
          const credits = numbers[n % numbers.length]!
          n++
          const end = encode(buffer, 7, time, keyId, 'devnet-a', method, calls, 200, credits, ms, source)
          expect(buffer.toString('utf8', 7, end)).toBe(
            lineText(time, keyId, 'devnet-a', method, calls, 200, credits, ms, source),
          )
        }
    expect(JSON.parse(lineText(1, 'k', 'n', 'm', 1, 200, 80, 0.25, undefined))).toMatchObject({ ms: 0.3 })
    const { writes, log, lines } = setup(64)
    write(log, line())
    expect(writes).toHaveLength(1)
    expect(lines()).toEqual([expect.objectContaining({ keyId: 'abc123', method: 'eth_chainId', ms: 1.2 })])
  })

  it('writes every integer as JavaScript prints it: all below 20,000, around each power of ten, and random ones', () => {
    const encode = createLineEncoder()
    const buffer = Buffer.alloc(1024)
    const numbers: number[] = Array.from({ length: 20_000 }, (_, n) => n)
    for (let p = 1; p <= 1e15; p *= 10) numbers.push(p - 1, p, p + 1, 2 * p - 1, 5 * p + 7)
    let seed = 11
    for (let k = 0; k < 3000; k++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      numbers.push(Math.floor((seed / 2 ** 31) * 10 ** (1 + (k % 16))))
    }
    for (const n of numbers) {
      const end = encode(buffer, 0, n, 'k', 'net', 'eth_call', n, 200, n, n / 10, undefined)
      expect(buffer.toString('utf8', 0, end)).toBe(lineText(n, 'k', 'net', 'eth_call', n, 200, n, n / 10, undefined))
    }
  })

  it('writes the same bytes for a key, network and method seen before, last or long ago, kept or past the cap', () => {
    const encode = createLineEncoder()
    const buffer = Buffer.alloc(1024)
    const check = (keyId: string | undefined, network: string, method: string) => {
      const end = encode(buffer, 0, 1_764_161_234_567, keyId, network, method, 1, 200, 80, 1.5, undefined)
      expect(buffer.toString('utf8', 0, end)).toBe(
        lineText(1_764_161_234_567, keyId, network, method, 1, 200, 80, 1.5, undefined),
      )
    }
    // Past the 4,096 kept combinations, then the first ones again; the same texts as new strings; no key.
    for (let i = 0; i < 5000; i++) check(`k${i % 7}`, `net-${i % 3}`, `m_${i}`)
    for (let i = 0; i < 5000; i += 499) check(`k${i % 7}`, `net-${i % 3}`, `m_${i}`)
    for (const keyId of ['a', 'a', ['a'].join(''), undefined, undefined, 'a'])
      check(keyId, 'n', ['eth_', 'call'].join(''))
    check('a', 'n2', 'eth_call')
    check('a', 'n2', 'eth_call2')
  })

  it('does not keep the parts of long method names a client made up (each line still written)', () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const encode = createLineEncoder()
    const buffer = Buffer.alloc(1024)
    gc()
    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < 100; i++) {
      const method = `${i}`.padEnd(1_000_000, 'x') // 1 MB each: 100 MB if the encoder kept them
      const end = encode(buffer, 0, 1, 'k', 'n', method, 1, 200, 0, 1, undefined)
      expect(buffer.toString('utf8', 0, end)).toBe(lineText(1, 'k', 'n', method, 1, 200, 0, 1, undefined))
    }
    encode(buffer, 0, 1, 'k', 'n', 'eth_call', 1, 200, 0, 1, undefined) // the last method is let go too
    gc()
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(20 * 2 ** 20)
  })

  it('writes nothing when the logger is above info', () => {
    const writes: string[] = []
    const log = createRequestLines(createLogger('warn', { write: (s: string) => void writes.push(s) }))
    write(log, line())
    log.flush()
    expect(writes).toHaveLength(0)
  })

  it('writes the bytes straight to a log file, in order with the other lines, and all of them at stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-reqlog-'))
    try {
      const file = join(dir, 'log')
      const dest = pino.destination({ dest: file, sync: false })
      await new Promise((r) => dest.once('ready', r))
      const logger = createLogger('info', dest)
      const log = createRequestLines(logger, 10_000, 4096)
      logger.info('before')
      write(log, line({ calls: 1 }))
      log.flush() // 'before' not yet written by the destination: this line goes after it, through it
      // Until the destination has written both (a loaded machine can take longer than any fixed sleep).
      const idle = dest as unknown as { _writing: boolean; _len: number }
      for (let i = 0; i < 500 && (idle._writing || idle._len !== 0); i++) await new Promise((r) => setTimeout(r, 10))
      const viaStream: string[] = []
      const streamWrite = dest.write.bind(dest)
      dest.write = (text: string) => (viaStream.push(text), streamWrite(text))
      for (let i = 1; i < 5; i++) write(log, line({ calls: i + 1 }))
      log.flush()
      expect(viaStream).toEqual([]) // the destination is idle: the bytes went to the file directly
      logger.info('after')
      dest.flushSync()
      const entries = readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(entries.map((e) => e.msg)).toEqual(['before', 'rpc', 'rpc', 'rpc', 'rpc', 'rpc', 'after'])
      expect(entries.filter((e) => e.msg === 'rpc').map((e) => e.calls)).toEqual([1, 2, 3, 4, 5])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
