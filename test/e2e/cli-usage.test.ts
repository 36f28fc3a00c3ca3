/**
 * The `chaingate` command as a user meets it, as a real child process: --version, help for one command,
 * "did you mean" for misspelled commands, sub-commands and options, and exit code 2 for every usage error.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupProcesses, ROOT, runCli } from './helpers/process.ts'

describe('chaingate usage', { timeout: 60_000 }, () => {
  afterAll(() => cleanupProcesses())

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    const r = await runCli(['--version'])
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `chaingate ${version}\n`, ''])
  })

  it('help <command> shows that command only; help alone the whole list', async () => {
    const key = await runCli(['help', 'key'])
    expect(key.code).toBe(0)
    expect(key.stdout).toContain('key revoke <key-id>')
    expect(key.stdout).toContain('--data-dir DIR')
    expect(key.stdout).not.toContain('account create')
    const start = await runCli(['start', '--help'])
    expect(start.code).toBe(0)
    expect(start.stdout).toContain('--log-requests file|stdout|off')
    expect(start.stdout).not.toContain('key revoke')
    const wallet = await runCli(['help', 'wallet'])
    expect(wallet.stdout).toContain('wallet approvals approve <id>')
    expect(wallet.stdout).toContain('Passphrase:')
    const all = await runCli(['help'])
    expect(all.code).toBe(0)
    for (const line of ['start [--port N]', 'account create', 'key create', 'wallet keystore create', '--version'])
      expect(all.stdout).toContain(line)
  })

  it.each([
    [['strat'], 'unknown command "strat" (did you mean start?); see chaingate help'],
    [['acount', 'list'], 'unknown command "acount" (did you mean account?); see chaingate help'],
    [['key', 'revok', 'x'], 'unknown command "key revok" (did you mean key revoke?); see chaingate help key'],
    [['key', 'list', '--josn'], 'unknown option --josn (did you mean --json?); see chaingate help'],
    [['usage', '--dya', '2026-01-01'], 'unknown option --dya (did you mean --day?); see chaingate help'],
    [['help', 'stat'], 'unknown command "stat" (did you mean start?); see chaingate help'],
    [['start', '--log-requests', 'stdot'], '--log-requests must be file, stdout or off (did you mean stdout?)'],
    [['start', '--port', 'http'], '--port must be a port number (0-65535; 0 picks a free one)'],
    [['xyzzy'], 'unknown command "xyzzy"; see chaingate help'],
  ])('chaingate %j is a usage error (exit 2) with a suggestion where one is close', async (args, message) => {
    const r = await runCli(args, { timeoutMs: 60_000 })
    expect([r.code, r.stderr, r.stdout]).toEqual([2, `error: ${message}\n`, ''])
  })
})
