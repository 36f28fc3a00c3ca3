import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../config/load.ts'
import { checkPortsFree, fixedPorts, LOCK_FILE, lockDataDir, StartRefused } from './preflight.ts'
import { portHolderClause } from './port-holder.ts'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'chaingate-lock-'))
  dirs.push(d)
  return d
}

describe('data dir lock', () => {
  it('is exclusive while its holder runs, taken over when the holder is dead, and removed on release', () => {
    const dir = temp()
    const file = join(dir, LOCK_FILE)
    // Held by a running process (this test's parent, the vitest runner): refused with its pid.
    writeFileSync(file, `${process.ppid}\n`)
    expect(() => lockDataDir(dir)).toThrow(
      new StartRefused(
        `the data dir ${dir} is in use by another chaingate (pid ${process.ppid}); stop it first, or use another ` +
          `--data-dir (if pid ${process.ppid} is not chaingate, delete ${file})`,
      ),
    )
    // Held by a process that exited: stale, taken over.
    const dead = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout,
    )
    writeFileSync(file, `${dead}\n`)
    const lock = lockDataDir(dir)
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid}\n`)
    lock.release()
    expect(existsSync(file)).toBe(false)
    // An empty lock (a crash between create and write) is taken over too.
    writeFileSync(file, '')
    lockDataDir(dir).release()
  })
})

describe('ports', () => {
  it('lists the fixed ports with their config keys and refuses a busy one', async () => {
    const server = createServer()
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    const port = (server.address() as { port: number }).port
    try {
      const config = parseConfig({ gateway: { port }, wallet: { port: 0 } }, 'test')
      expect(fixedPorts(config).map((p) => p.key)).toEqual(['gateway.port in the config, or --port'])
      await expect(checkPortsFree(config)).rejects.toThrow(
        `port ${port} is already in use (gateway.port in the config, or --port); stop the other process or choose ` +
          'another port',
      )
      const twice = parseConfig({ gateway: { port: 40001 }, wallet: { port: 40001 } }, 'test')
      await expect(checkPortsFree(twice)).rejects.toThrow('port 40001 is configured twice')
    } finally {
      server.close()
    }
  })
})

describe('a busy port names its holder', () => {
  it('says which process listens on it, as /proc tells', async () => {
    const holder = spawn(
      process.execPath,
      ['-e', "require('net').createServer().listen(0,'127.0.0.1',function(){console.log(this.address().port)})"],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    )
    try {
      const port = Number(await new Promise<string>((r) => holder.stdout!.once('data', (c: Buffer) => r(String(c)))))
      const config = parseConfig({ gateway: { port }, wallet: { port: 0 } }, 'test')
      await expect(checkPortsFree(config)).rejects.toThrow(
        `port ${port} is already in use (gateway.port in the config, or --port); stop the other process or choose ` +
          `another port; held by pid ${holder.pid} (node)`,
      )
      expect(portHolderClause(1)).toBe('; the OS does not say which process holds it (another user, or no /proc)')
    } finally {
      holder.kill()
    }
  })
})
