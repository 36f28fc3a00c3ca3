import { describe, expect, it } from 'vitest'
import { createLogger, createRequestLog, type RequestLine } from './logger.ts'

function setup(capacity?: number) {
  const writes: string[] = []
  const logger = createLogger('info', { write: (s: string) => void writes.push(s) })
  const log = createRequestLog(logger, 20, capacity)
  const lines = () => writes.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
  return { writes, log, lines }
}
const line = (over: Partial<RequestLine> = {}): RequestLine => ({ keyId: 'abc123', network: 'devnet-a', method: 'eth_chainId', calls: 1, status: 200, credits: 80, ms: 1.2, ...over })

describe('request log', () => {
  it('batches lines and writes them as pino-shaped JSON after the flush interval', async () => {
    const { writes, log, lines } = setup()
    log.write(line())
    log.write(line({ keyId: undefined, status: 401, credits: 0 }))
    expect(writes).toHaveLength(0)
    await new Promise((r) => setTimeout(r, 60))
    expect(writes).toHaveLength(1)
    const [a, b] = lines()
    expect(a).toMatchObject({ level: 30, keyId: 'abc123', network: 'devnet-a', method: 'eth_chainId', calls: 1, status: 200, credits: 80, ms: 1.2, msg: 'rpc' })
    expect(typeof a!.time).toBe('number')
    expect(b).not.toHaveProperty('keyId')
    expect(b).toMatchObject({ status: 401, credits: 0 })
  })

  it('escapes and shortens what the client chose as a method name, keeping UTF-8 intact', () => {
    const { log, lines } = setup()
    log.write(line({ method: 'eth_"quoted"\n\u00e9\u4e2d' }))
    log.write(line({ method: 'x'.repeat(10_000) }))
    log.flush()
    const [a, b] = lines()
    expect(a!.method).toBe('eth_"quoted"\n\u00e9\u4e2d')
    expect(b!.method).toBe(`${'x'.repeat(128)}…`)
  })

  it('flushes when the buffer is full and loses no line', () => {
    const { writes, log, lines } = setup(1024)
    for (let i = 0; i < 100; i++) log.write(line({ calls: i }))
    log.flush()
    expect(writes.length).toBeGreaterThan(5)
    expect(lines().map((l) => l.calls)).toEqual([...Array(100).keys()])
  })

  it('writes nothing when the logger is above info', () => {
    const writes: string[] = []
    const log = createRequestLog(createLogger('warn', { write: (s: string) => void writes.push(s) }))
    log.write(line())
    log.flush()
    expect(writes).toHaveLength(0)
  })
})
