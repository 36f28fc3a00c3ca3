/**
 * `chaingate usage` as the dashboard shows it: a call refused because the key lacks the network is listed under
 * the method called (not `(invalid)`), and an account's report ends with its remaining daily balance (the plan's
 * credits per day minus what it spent today, the dashboard's numbers).
 */
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupProcesses, removeDirs, rpc, runCli, startChaingate, tempDir, writeConfig } from './helpers/process.ts'

const dir = tempDir('chaingate-usage-report-')
const data = join(dir, 'data')

describe('chaingate usage', { timeout: 180_000 }, () => {
  afterAll(async () => {
    await cleanupProcesses([data])
    removeDirs([dir])
  }, 60_000)

  it('names the refused method and shows the remaining daily balance', async () => {
    const file = writeConfig(dir, 'chaingate.yaml', {
      gateway: { port: 0 },
      networks: [
        { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
        { name: 'devnet-b', chainId: 31338, embedded: { port: 0 } },
      ],
      plans: { small: { creditsPerDay: 1000, creditsPerSecond: 1000, maxKeys: null } },
      wallet: { enabled: false },
    })
    const base = ['--config', file, '--data-dir', data]
    expect((await runCli(['account', 'create', '--email', 'u@example.com', '--plan', 'small', ...base])).code).toBe(0)
    const created = await runCli([
      'key',
      'create',
      '--account',
      'u@example.com',
      '--networks',
      'devnet-a',
      '--json',
      ...base,
    ])
    const key = created.json().key as string
    const cg = await startChaingate(base, { timeoutMs: 120_000 })
    const url = cg.banner.gatewayUrl
    const ok = await rpc(`${url}/networks/devnet-a/v3/${key}`, 'eth_blockNumber')
    const refused = await rpc(`${url}/networks/devnet-b/v3/${key}`, 'eth_getBalance', [
      '0x0000000000000000000000000000000000000000',
      'latest',
    ])
    expect(ok.status).toBe(200)
    expect(refused.status).toBe(401) // NETWORK_NOT_ENABLED (docs/errors.md)
    await cg.signal('SIGTERM', 60_000) // the ledger is written on the way out
    const report = await runCli(['usage', '--account', 'u@example.com', ...base])
    expect(report.code).toBe(0)
    expect(report.stdout).toMatch(/^eth_getBalance\s+1\s+\d+\s+1$/m)
    expect(report.stdout).not.toContain('(invalid)')
    const spent = ok.credits + refused.credits
    expect(report.stdout).toContain(`daily balance: ${1000 - spent} of 1000 credits left today (${spent} used)`)
  })
})
