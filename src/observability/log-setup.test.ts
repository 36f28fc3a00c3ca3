import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createServiceLog, readableLine } from './log-setup.ts'
import { createRequestLines } from './logger.ts'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

describe('service log to a file', () => {
  it('info and request lines go to the private file; warnings and errors to the terminal, one line each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaingate-log-'))
    dirs.push(dir)
    const file = join(dir, 'logs', 'chaingate.log')
    const terminal: string[] = []
    const log = createServiceLog({
      level: 'info',
      to: 'file',
      file,
      terminal: { write: (t: string) => terminal.push(t) },
    })
    log.logger.info({ network: 'devnet-a' }, 'started')
    log.logger.warn({ network: 'devnet-b', password: 'hunter2' }, 'node slow')
    log.logger.error({ err: new Error('boom') }, 'failed')
    const requests = createRequestLines(log.logger)
    requests.write('k1', 'devnet-a', 'eth_chainId', 1, 200, 5, 1, undefined)
    requests.flush()
    await new Promise((r) => setTimeout(r, 50))
    log.flush()
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines.map((l) => l.msg)).toEqual(['started', 'node slow', 'failed', 'rpc'])
    expect(terminal).toEqual([
      'chaingate warning: node slow (network=devnet-b, password=[redacted])\n',
      'chaingate error: failed (error=boom)\n',
    ])
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'logs')).mode & 0o777).toBe(0o700)
  })

  it('readableLine leaves a line that is not JSON as it is', () => {
    expect(readableLine('plain text\n')).toBe('plain text\n')
  })
})
