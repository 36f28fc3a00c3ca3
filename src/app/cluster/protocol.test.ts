import { describe, expect, it } from 'vitest'
import {
  EMBEDDED_URLS_ENV,
  isPrimaryMessage,
  isWorkerMessage,
  readWorkerEnv,
  WORKER_NUMBER_ENV,
  workerEnv,
} from './protocol.ts'

const chains = {
  'devnet-a': { url: 'http://127.0.0.1:8545', wsUrl: 'ws://127.0.0.1:8545' },
  'devnet-b': { url: 'http://127.0.0.1:8547', wsUrl: 'ws://127.0.0.1:8547' },
}

describe('cluster protocol: the worker environment', () => {
  it('carries the worker number and the embedded chains URLs from primary to worker unchanged', () => {
    const env = workerEnv(3, chains)
    expect(Object.keys(env).sort()).toEqual([EMBEDDED_URLS_ENV, WORKER_NUMBER_ENV].sort())
    const read = readWorkerEnv({ ...process.env, ...env })
    expect(read.number).toBe('3')
    expect(Object.fromEntries(read.embeddedUrls)).toEqual(chains)
  })

  it('a worker forked without chains (no embedded network) reads an empty map', () => {
    const read = readWorkerEnv(workerEnv(1, {}))
    expect(read.embeddedUrls.size).toBe(0)
  })

  it('a missing worker number reads as "?" (logs still name the worker)', () => {
    expect(readWorkerEnv({ [EMBEDDED_URLS_ENV]: '{}' }).number).toBe('?')
  })
})

describe('cluster protocol: messages', () => {
  it('the primary recognises ready, failed and reloaded messages from a worker', () => {
    expect(isWorkerMessage({ type: 'reloaded', ack: { id: 'x', ok: true } })).toBe(true)
    expect(isWorkerMessage({ type: 'ready', url: 'http://127.0.0.1:8545' })).toBe(true)
    expect(isWorkerMessage({ type: 'ready', url: 'http://x', operationsUrl: 'http://y' })).toBe(true)
    expect(isWorkerMessage({ type: 'failed', message: 'port in use' })).toBe(true)
  })

  it('the primary ignores anything else on the IPC channel (other modules may use it)', () => {
    for (const m of [null, undefined, 'ready', 1, {}, { type: 'drain', minDelayMs: 0 }, { type: 'READY' }])
      expect(isWorkerMessage(m)).toBe(false)
  })

  it('a worker recognises only the drain and reload messages from the primary', () => {
    expect(isPrimaryMessage({ type: 'drain', minDelayMs: 1000 })).toBe(true)
    expect(isPrimaryMessage({ type: 'reload', id: 'abc' })).toBe(true)
    for (const m of [null, undefined, 'drain', {}, { type: 'ready', url: 'http://x' }, { type: 'failed' }])
      expect(isPrimaryMessage(m)).toBe(false)
  })
})
