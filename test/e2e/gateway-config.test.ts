/**
 * The config file at start (issue 2, point 8): validated before anything starts, every problem reported with its
 * path and a non-zero exit; YAML syntax errors and missing files answered clearly; JSON works as well as YAML.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  cleanupProcesses,
  removeDirs,
  rpcResult,
  runCli,
  startChaingate,
  tempDir,
  waitNoChainProcesses,
  writeConfig,
} from './helpers/process.ts'

describe('chaingate start --config', { timeout: 60_000 }, () => {
  const dir = tempDir('chaingate-config-')
  const dataDir = join(dir, 'data')
  const start = (configFile: string) =>
    runCli(['start', '--config', configFile, '--data-dir', dataDir], { timeoutMs: 20_000 })
  /** Exit code and stderr of a refused start; nothing may have been started or written. */
  const refused = async (configFile: string) => {
    const r = await start(configFile)
    expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).not.toBe(0)
    expect(r.code).not.toBeNull() // exited by itself, not killed by the timeout
    expect(r.stdout).not.toContain('chaingate is running')
    expect(existsSync(dataDir)).toBe(false)
    return r.stderr
  }

  afterAll(async () => {
    await cleanupProcesses([dataDir, join(dir, 'json-data')])
    removeDirs([dir])
  }, 40_000)

  const PROBLEMS_YAML = `# several problems at once
bogus: 1                 # unknown key at the top
gateway:
  port: "eighty"         # wrong type
  prot: 8545             # unknown key inside a section
networks:
  - name: alpha
    chainId: 1001
    embedded: {}
  - name: both
    chainId: 1002
    embedded: {}
    upstreams:           # both embedded and upstreams
      - url: http://127.0.0.1:1
`

  it('reports every field problem with its path (unknown keys, wrong type, embedded + upstreams) and exits non-zero', async () => {
    const file = join(dir, 'bad.yaml')
    writeFileSync(file, PROBLEMS_YAML)
    const stderr = await refused(file)
    expect(stderr).toContain(file)
    const lines = stderr.split('\n').filter((l) => l.trim().startsWith('- '))
    // unknown keys: each at its own path
    expect(lines).toContainEqual(expect.stringMatching(/- bogus: unknown key/))
    expect(lines).toContainEqual(expect.stringMatching(/- gateway\.prot: unknown key/))
    expect(lines).toContainEqual(expect.stringMatching(/- gateway\.port: .*(number|type)/i))
    expect(lines).toContainEqual(expect.stringMatching(/- networks\[1\]: .*embedded.*upstreams/))
    expect(lines).toHaveLength(4)
  })

  it('reports cross-field problems (duplicate network name) with their path', async () => {
    const file = writeConfig(dir, 'dup.yaml', {
      networks: [
        { name: 'alpha', chainId: 1001, embedded: {} },
        { name: 'alpha', chainId: 1002, embedded: {} },
        { name: 'both', chainId: 1003, embedded: {}, upstreams: [{ url: 'http://127.0.0.1:1' }] },
      ],
    })
    const stderr = await refused(file)
    expect(stderr).toMatch(/- networks\[1\]\.name: duplicate network alpha/)
    expect(stderr).toMatch(/- networks\[2\]: .*embedded.*upstreams/)
  })

  // BUG (src/config/schema.ts, the root `.superRefine` of ConfigSchema): zod skips refinements when a field already
  // failed (wrong type, unknown key), so the cross-field checks (duplicate network name / chainId / host, unknown
  // plan, credits.networks) are not reported together with field problems: an operator fixes the file and only then
  // learns about the duplicate. The issue asks for every problem in one go. Expected to fail until fixed; then turn
  // `it.fails` back into `it`.
  it('reports field problems and a duplicate network name together', async () => {
    const file = join(dir, 'bad-and-dup.yaml')
    writeFileSync(file, `${PROBLEMS_YAML}  - name: alpha\n    chainId: 1003\n    embedded: {}\n`)
    const stderr = await refused(file)
    expect(stderr).toMatch(/- gateway\.port: /)
    expect(stderr).toMatch(/- networks\[2\]\.name: duplicate network alpha/)
  })

  it('bad YAML syntax: a clear error naming the file and the line, non-zero exit', async () => {
    const file = join(dir, 'syntax.yaml')
    writeFileSync(file, 'gateway:\n  port: 0\n  host: [127.0.0.1\nnetworks: []\n')
    const stderr = await refused(file)
    expect(stderr).toContain(file)
    expect(stderr).toMatch(/not valid YAML/)
    expect(stderr).toMatch(/line \d+/)
    expect(stderr).not.toMatch(/\n\s+at /) // a message, not a stack trace
  })

  it('bad JSON syntax: a clear error, non-zero exit', async () => {
    const file = join(dir, 'syntax.json')
    writeFileSync(file, '{"gateway": {"port": 0,}}')
    const stderr = await refused(file)
    expect(stderr).toContain(file)
    expect(stderr).toMatch(/not valid JSON/)
  })

  it('a missing config file: a clear error naming it, non-zero exit', async () => {
    const file = join(dir, 'does-not-exist.yaml')
    const stderr = await refused(file)
    expect(stderr).toContain(file)
    expect(stderr).toMatch(/cannot read file: ENOENT/)
    expect(stderr).not.toMatch(/\n\s+at /)
  })

  it('a JSON config works: its network, chain ID and dev account are used', async () => {
    const jsonData = join(dir, 'json-data')
    const file = writeConfig(dir, 'chaingate.json', {
      gateway: { port: 0, devAccount: { email: 'json@example.com', plan: 'team' } },
      networks: [{ name: 'jsonnet', chainId: 4242, embedded: { port: 0 } }],
      wallet: { enabled: false },
      log: { requests: false },
    })
    const cg = await startChaingate(['--config', file, '--data-dir', jsonData])
    try {
      expect(cg.banner.networks).toEqual({
        jsonnet: { chainId: 4242, host: `jsonnet.localhost:${new URL(cg.banner.gatewayUrl).port}` },
      })
      expect(cg.bannerText()).toContain(`config ${file}`)
      expect(cg.bannerText()).toContain('account json@example.com, plan team')
      expect(await rpcResult(cg.banner.endpoints.jsonnet!, 'eth_chainId')).toBe('0x1092')
    } finally {
      const exit = await cg.signal('SIGTERM', 20_000)
      expect(exit).toEqual({ code: 0, signal: null })
      expect(await waitNoChainProcesses(jsonData, 2_000)).toEqual([])
    }
  })
})
