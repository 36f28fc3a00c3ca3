/**
 * How `chaingate start` stops as users and supervisors stop it: `kill <pid of npm start>` (SIGTERM or SIGINT to
 * npm's own pid) ends chaingate and its chains, and a terminal's Ctrl-C (SIGINT to the whole foreground process
 * group) is a requested stop, not an "anvil exited unexpectedly" warning. `chaingate` with no arguments prints the
 * help and exits 0.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  BANNER_END,
  chainProcesses,
  cleanupProcesses,
  processesMatching,
  removeDirs,
  ROOT,
  runCli,
  tempDir,
  waitFor,
  waitNoChainProcesses,
  writeConfig,
} from './helpers/process.ts'

const dirs: string[] = []
const dataDirs: string[] = []
const spawned: ChildProcess[] = []

function setup(): { file: string; data: string } {
  const dir = tempDir('chaingate-signals-')
  dirs.push(dir)
  const data = join(dir, 'data')
  dataDirs.push(data)
  const file = writeConfig(dir, 'chaingate.yaml', {
    gateway: { port: 0 },
    networks: [
      { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
      { name: 'devnet-b', chainId: 31338, embedded: { port: 0 } },
    ],
    wallet: { enabled: false },
  })
  return { file, data }
}

/** Spawns a command in its own process group (as a terminal does for a foreground job); waits for the banner. */
async function startInGroup(command: string, args: string[]) {
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, CHAINGATE_RUN_SOURCES: '1' },
  })
  spawned.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  await waitFor(() => stdout.includes(BANNER_END), 120_000, `the banner (stdout: ${stdout} stderr: ${stderr})`, 100)
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

describe('stopping chaingate start', { timeout: 240_000 }, () => {
  afterAll(async () => {
    for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
    await cleanupProcesses(dataDirs)
    for (const data of dataDirs)
      for (const p of processesMatching(`--data-dir ${data}`)) {
        try {
          process.kill(p.pid, 'SIGKILL')
        } catch {}
      }
    removeDirs(dirs)
  }, 60_000)

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the pid of \`npm start\` stops chaingate and its chains`, async () => {
      const { file, data } = setup()
      const npm = await startInGroup('npm', ['start', '--', '--config', file, '--data-dir', data])
      expect(chainProcesses(data).length).toBeGreaterThan(0)
      expect(processesMatching(`--data-dir ${data}`).length).toBeGreaterThan(0)
      process.kill(npm.child.pid!, signal) // the npm process only, as `kill <pid>` does
      await waitFor(() => processesMatching(`--data-dir ${data}`).length === 0, 30_000, 'chaingate to exit')
      expect(await waitNoChainProcesses(data, 15_000)).toEqual([])
    })
  }

  it("a terminal's Ctrl-C (SIGINT to the process group) stops the chains without a warning", async () => {
    const { file, data } = setup()
    const cg = await startInGroup(process.execPath, [
      'bin/chaingate.mjs',
      'start',
      '--config',
      file,
      '--data-dir',
      data,
    ])
    process.kill(-cg.child.pid!, 'SIGINT') // the whole group, as the terminal does
    await cg.exited
    expect(await waitNoChainProcesses(data, 15_000)).toEqual([])
    expect(cg.stderr()).not.toMatch(/exited unexpectedly/)
    expect(cg.stderr()).not.toContain('SIGINT')
  })

  it('`chaingate` with no arguments prints the help and exits 0', async () => {
    const r = await runCli([])
    expect(r.stdout).toContain('  start [--port N]')
    expect(r.code).toBe(0)
  })
})
