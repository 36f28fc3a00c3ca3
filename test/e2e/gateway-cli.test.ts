/**
 * The `chaingate` administration commands as a real child process against the data dir of a running server
 * (issue 2, point 4): accounts, keys, networks, limits, revocation and usage, each honoured by the server within
 * about a second (gateway.settingsPollMs, default 500), plus plans, plan key limits, --help and unknown commands.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/server.ts'
import { cleanupProcesses, removeDirs, rpc, runCli, tempDir, waitFor, writeConfig } from './helpers/process.ts'

/** "Within about a second": the default settingsPollMs (500) plus slack for a loaded 2-core machine. */
const HONOURED_WITHIN_MS = 2_000
const NETWORK_DENIED = 'project ID does not have access to this network\n'
const INVALID_KEY = 'invalid project id\n'

interface KeyJson {
  id: string
  key: string
  accountId: string
  name: string
  revokedAt: number | null
  networks: string[]
  creditsPerSecond: number | null
  creditsPerDay: number | null
  endpoints: Record<string, { http: string; ws: string; host: string }>
}

describe('chaingate CLI against a running server', { timeout: 60_000 }, () => {
  let server: TestServer
  const dir = tempDir('chaingate-cli-')
  let cli: (...args: string[]) => ReturnType<typeof runCli>
  /** Path-form endpoint on the running server. */
  const url = (network: string, key: string) => `${server.url}/networks/${network}/v3/${key}`

  /** Polls a cheap call until `accept(status, body)` holds; returns the ms it took. */
  const honoured = async (
    what: string,
    network: string,
    key: string,
    accept: (status: number, text: string) => boolean,
  ) => {
    const t0 = Date.now()
    await waitFor(
      async () => {
        const r = await rpc(url(network, key), 'eth_chainId')
        return accept(r.status, r.text) || undefined
      },
      HONOURED_WITHIN_MS,
      what,
      25,
    )
    return Date.now() - t0
  }

  beforeAll(async () => {
    // Defaults for the poll/flush intervals: the test is about what a user gets.
    server = await startTestServer({ gateway: { settingsPollMs: 500, usageFlushMs: 1000 } })
    const { config } = server.app
    const configFile = writeConfig(dir, 'chaingate.yaml', {
      gateway: { port: Number(new URL(server.url).port) },
      networks: config.networks,
      wallet: { enabled: false },
    })
    cli = (...args: string[]) => runCli([...args, '--data-dir', config.dataDir, '--config', configFile])
  })

  afterAll(async () => {
    await cleanupProcesses()
    await server?.stop()
    removeDirs([dir])
  }, 40_000)

  it('--help exits 0 with the command list; an unknown command exits 2 with a message', async () => {
    const [help, unknown, unknownSub, noAccount] = await Promise.all([
      runCli(['--help']),
      cli('frobnicate'),
      cli('key', 'frobnicate'),
      cli('key', 'create', '--json'),
    ])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: chaingate <command>')
    for (const cmd of ['start', 'plans', 'account create', 'key create', 'key enable-network', 'key revoke', 'usage'])
      expect(help.stdout).toContain(cmd)

    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"; see chaingate help/)
    expect(unknownSub.code).toBe(2)
    expect(unknownSub.stderr).toContain('unknown command "key frobnicate"')
    expect(noAccount.code).toBe(2)
    expect(noAccount.stderr).toContain('--account is required')
  })

  it('a misspelled option or a bad --day exits 2 with a message instead of being ignored', async () => {
    const [typo, badDay] = await Promise.all([cli('key', 'list', '--acount', 'x'), cli('usage', '--day', '2026-13-45')])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toBe('error: unknown option --acount (did you mean --account?); see chaingate help\n')
    expect(badDay.code).toBe(2)
    expect(badDay.stderr).toContain('--day must be a date')
  })

  it("plans --json lists Infura's plans with their numbers", async () => {
    const r = await cli('plans', '--json')
    expect(r.code, r.stderr).toBe(0)
    const plans = r.json() as {
      name: string
      creditsPerDay: number
      creditsPerSecond: number
      maxKeys: number | null
    }[]
    const byName = Object.fromEntries(plans.map((p) => [p.name, p]))
    expect(byName.free).toEqual({ name: 'free', creditsPerDay: 3_000_000, creditsPerSecond: 500, maxKeys: 1 })
    expect(byName.developer).toEqual({
      name: 'developer',
      creditsPerDay: 15_000_000,
      creditsPerSecond: 4_000,
      maxKeys: 5,
    })
    expect(byName.team).toEqual({ name: 'team', creditsPerDay: 75_000_000, creditsPerSecond: 40_000, maxKeys: null })
  })

  describe('one account, one key, through its life', () => {
    const email = `cli-${Date.now()}@example.com`
    let accountId = ''
    let k: KeyJson

    it('account create --json', async () => {
      const r = await cli('account', 'create', '--email', email, '--plan', 'developer', '--json')
      expect(r.code, r.stderr).toBe(0)
      const a = r.json()
      expect(a).toMatchObject({ email, plan: 'developer' })
      expect(typeof a.id).toBe('string')
      accountId = a.id
      const [again, list] = await Promise.all([
        cli('account', 'create', '--email', email, '--json'),
        cli('account', 'list', '--json'),
      ])
      expect(again.code).not.toBe(0)
      expect(again.stderr).toContain(`an account with email ${email} exists`)
      expect(list.json()).toContainEqual(expect.objectContaining({ id: accountId, email, plan: 'developer' }))
    })

    it('key create --networks devnet-a: works on devnet-a within ~1 s, 401 on devnet-b', async () => {
      const r = await cli('key', 'create', '--account', email, '--name', 'ci key', '--networks', 'devnet-a', '--json')
      expect(r.code, r.stderr).toBe(0)
      k = r.json()
      expect(k.key).toMatch(/^[0-9a-f]{32}$/)
      expect(k).toMatchObject({ accountId, name: 'ci key', networks: ['devnet-a'], revokedAt: null })
      expect(Object.keys(k.endpoints)).toEqual(['devnet-a'])
      await honoured('the new key on devnet-a', 'devnet-a', k.key, (s) => s === 200)
      // The printed endpoint URL is the real one (the config names the server's port).
      const viaPrinted = await rpc(k.endpoints['devnet-a']!.http, 'eth_chainId')
      expect(viaPrinted.status).toBe(200)
      expect(viaPrinted.json().result).toBe('0x7a69')
      const denied = await rpc(url('devnet-b', k.key), 'eth_chainId')
      expect(denied.status).toBe(401)
      expect(denied.text).toBe(NETWORK_DENIED)
    })

    it('key enable-network devnet-b: works within ~1 s; disable-network: 401 again within ~1 s', async () => {
      const [on, bad] = await Promise.all([
        cli('key', 'enable-network', k.id, 'devnet-b', '--json'),
        cli('key', 'enable-network', k.id, 'no-such-net'),
      ])
      expect(bad.code).not.toBe(0)
      expect(bad.stderr).toContain('unknown network no-such-net')
      expect(on.code, on.stderr).toBe(0)
      expect(on.json().networks).toEqual(['devnet-a', 'devnet-b'])
      await honoured('devnet-b enabled', 'devnet-b', k.key, (s) => s === 200)
      expect((await rpc(url('devnet-b', k.key), 'eth_chainId')).json().result).toBe('0x7a6a')

      const off = await cli('key', 'disable-network', k.key, 'devnet-b', '--json') // the key itself works as a ref too
      expect(off.code, off.stderr).toBe(0)
      expect(off.json().networks).toEqual(['devnet-a'])
      await honoured('devnet-b disabled', 'devnet-b', k.key, (s, text) => s === 401 && text === NETWORK_DENIED)
      expect((await rpc(url('devnet-a', k.key), 'eth_chainId')).status).toBe(200)
    })

    it('key limits: set, honoured within ~1 s (-33400 on the key daily limit), reset with 0', async () => {
      const [set, bad] = await Promise.all([
        cli('key', 'limits', k.id, '--credits-per-second', '1000', '--credits-per-day', '1', '--json'),
        cli('key', 'limits', k.id, '--credits-per-day', '-5'),
      ])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain('--credits-per-day must be a whole number')
      expect(set.code, set.stderr).toBe(0)
      expect(set.json()).toMatchObject({ creditsPerSecond: 1000, creditsPerDay: 1 })
      // Already over 1 credit today: every call is refused with Infura's key-daily-limit answer.
      await honoured('the key daily limit', 'devnet-a', k.key, (s) => s === 429)
      const refused = await rpc(url('devnet-a', k.key), 'eth_chainId')
      expect(refused.status).toBe(429)
      expect(refused.json().error.code).toBe(429)
      expect(refused.json().error.event).toBe(-33400)
      expect(refused.credits).toBe(0)

      const reset = await cli('key', 'limits', k.id, '--credits-per-day', '0', '--json')
      expect(reset.code, reset.stderr).toBe(0)
      expect(reset.json()).toMatchObject({ creditsPerSecond: 1000, creditsPerDay: null })
      await honoured('the key limit reset', 'devnet-a', k.key, (s) => s === 200)
    })

    it('usage --json shows the calls by method', async () => {
      // Methods used only here, with this key: exact numbers.
      for (let i = 0; i < 3; i++) expect((await rpc(url('devnet-a', k.key), 'net_version')).status).toBe(200)
      for (let i = 0; i < 2; i++) expect((await rpc(url('devnet-a', k.key), 'eth_gasPrice')).status).toBe(200)
      const rows = await waitFor(
        async () => {
          const r = await cli('usage', '--key', k.id, '--by', 'method', '--json')
          expect(r.code, r.stderr).toBe(0)
          const report = r.json() as { rows: { group: string; calls: number; credits: number; errors: number }[] }
          const gas = report.rows.find((x) => x.group === 'eth_gasPrice')
          return gas?.calls === 2 ? report.rows : undefined
        },
        10_000,
        'usage flushed (gateway.usageFlushMs)',
        200,
      )
      expect(rows.find((x) => x.group === 'net_version')).toEqual({
        group: 'net_version',
        calls: 3,
        credits: 15,
        errors: 0,
      })
      expect(rows.find((x) => x.group === 'eth_gasPrice')).toEqual({
        group: 'eth_gasPrice',
        calls: 2,
        credits: 160,
        errors: 0,
      })
      // --account and --by network work as well.
      const byNet = await cli('usage', '--account', email, '--by', 'network', '--json')
      expect(byNet.code, byNet.stderr).toBe(0)
      expect(byNet.json().rows.map((r: { group: string }) => r.group)).toContain('devnet-a')
    })

    it('key list --json shows the key; key show; key rename', async () => {
      const [list, renamed] = await Promise.all([
        cli('key', 'list', '--account', email, '--json'),
        cli('key', 'rename', k.id, 'renamed', 'key', '--json'),
      ])
      expect(list.code, list.stderr).toBe(0)
      expect(list.json()).toEqual([expect.objectContaining({ id: k.id, key: k.key, networks: ['devnet-a'] })])
      expect(renamed.code, renamed.stderr).toBe(0)
      expect(renamed.json().name).toBe('renamed key')
      const show = await cli('key', 'show', k.id)
      expect(show.code, show.stderr).toBe(0)
      expect(show.stdout).toContain(`key ${k.id} "renamed key"`)
      expect(show.stdout).toContain(k.key)
    })

    it('key revoke: 401 invalid project id within ~1 s; listed only with --all', async () => {
      const r = await cli('key', 'revoke', k.id, '--json')
      expect(r.code, r.stderr).toBe(0)
      expect(r.json().revokedAt).toEqual(expect.any(Number))
      await honoured('the revocation', 'devnet-a', k.key, (s, text) => s === 401 && text === INVALID_KEY)
      const [list, all] = await Promise.all([
        cli('key', 'list', '--account', email, '--json'),
        cli('key', 'list', '--account', email, '--all', '--json'),
      ])
      expect(list.json()).toEqual([])
      expect(all.json()).toEqual([expect.objectContaining({ id: k.id, revokedAt: expect.any(Number) })])
    })
  })

  it('the free plan allows one key: a second key is refused with a clear error and a non-zero exit', async () => {
    const email = `free-${Date.now()}@example.com`
    expect((await cli('account', 'create', '--email', email, '--plan', 'free', '--json')).code).toBe(0)
    const first = await cli('key', 'create', '--account', email, '--json')
    expect(first.code, first.stderr).toBe(0)
    const second = await cli('key', 'create', '--account', email, '--json')
    expect(second.code).not.toBe(0)
    expect(second.stdout).toBe('')
    expect(second.stderr).toContain('the free plan allows 1 API key')
    // Revoking the first makes room.
    expect((await cli('key', 'revoke', first.json().id)).code).toBe(0)
    const third = await cli('key', 'create', '--account', email, '--json')
    expect(third.code, third.stderr).toBe(0)
  })
})
