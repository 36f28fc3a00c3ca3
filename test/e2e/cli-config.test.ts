/**
 * `chaingate config validate [FILE]` and `chaingate config show` as an operator's CI pipeline runs them, with
 * `${ENV_VAR}` references in the file.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { removeDirs, runCli, tempDir, writeConfig } from './helpers/process.ts'

const dirs: string[] = []
afterAll(() => removeDirs(dirs))

describe('chaingate config', () => {
  const dir = tempDir('chaingate-config-')
  dirs.push(dir)
  const good = writeConfig(dir, 'good.yaml', {
    networks: [{ name: 'mainnet', chainId: 1, upstreams: [{ url: 'https://eth.example/v3/${CG_E2E_PROVIDER_KEY}' }] }],
    database: { url: 'postgres://app:${CG_E2E_DB_PASSWORD:-fallbackpw}@db:5432/chaingate' },
  })
  const bad = writeConfig(dir, 'bad.yaml', {
    networks: [{ name: 'mainnet', chainId: 1, upstreams: [{ url: 'https://eth.example/v3/${CG_E2E_UNSET_VAR}' }] }],
    gateway: { port: 'abc' },
  })
  process.env.CG_E2E_PROVIDER_KEY = 'PROVIDERKEY0123456789'

  it('validate: a good file exits 0 naming what it holds; a bad one lists every problem with its path, exit 1', async () => {
    const ok = await runCli(['config', 'validate', good])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain(`${good}: valid (1 networks, 1 upstreams`)
    const ko = await runCli(['config', 'validate', bad])
    expect(ko.code).toBe(1)
    expect(ko.stderr).toContain('networks[0].upstreams[0].url: environment variable CG_E2E_UNSET_VAR is not set')
    expect(ko.stderr).toContain('gateway.port:')
    expect(ko.stdout).toBe('')
  })

  it('show: the effective config with env values expanded and every secret redacted', async () => {
    const yaml = await runCli(['config', 'show', '--config', good])
    expect(yaml.code).toBe(0)
    expect(yaml.stdout).toContain('url: https://eth.example/…')
    expect(yaml.stdout).toContain('postgres://app:***@db:5432/chaingate')
    const json = await runCli(['config', 'show', '--config', good, '--json'])
    const shown = json.json()
    expect(shown.gateway.port).toBe(8545)
    expect(shown.networks[0].upstreams[0].url).toBe('https://eth.example/…')
    for (const secret of ['PROVIDERKEY0123456789', 'fallbackpw']) {
      expect(yaml.stdout).not.toContain(secret)
      expect(json.stdout).not.toContain(secret)
    }
  })

  it('a missing sub-command is a usage error (exit 2) that names the choices', async () => {
    const r = await runCli(['config'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('config needs validate or show')
  })
})
