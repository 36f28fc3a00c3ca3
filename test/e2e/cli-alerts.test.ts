/**
 * `chaingate alerts …` against a running gateway's data dir (docs/alerts.md): set while the server runs (the secret
 * printed once, never listed), refused for a non-http(s) webhook, the server's sweep picks the settings up, real
 * calls cross the threshold, and `alerts deliveries --json` shows the delivered alert with its attempt log; the
 * change is in the audit with the webhook's host only.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { verifySignature } from '../../src/alerts/webhook.ts'
import { cleanupProcesses, removeDirs, runCli, tempDir, writeConfig } from './helpers/process.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { signed, startReceiver, type Receiver } from '../support/webhook-receiver.ts'

let server: TestServer
let receiver: Receiver
const dataDir = tempDir('chaingate-alerts-cli-')
const configDir = tempDir('chaingate-alerts-cli-config-')
// The receiver listens on 127.0.0.1: the operator's opt-in for private targets (docs/alerts.md, "SSRF"), which the
// CLI checks too when it saves the webhook.
const configFile = writeConfig(configDir, 'chaingate.yaml', { alerts: { allowPrivateTargets: true } })
const cli = (...args: string[]) =>
  runCli([...args, '--config', configFile, '--data-dir', dataDir], { timeoutMs: 60_000 })

beforeAll(async () => {
  receiver = await startReceiver('/hooks/T0KEN-IN-PATH')
  server = await startTestServer(
    {
      dataDir,
      plans: { tiny: { creditsPerDay: 800, creditsPerSecond: 100_000, maxKeys: null } },
      // The receiver listens on 127.0.0.1: the operator's opt-in for private targets (docs/alerts.md, "SSRF").
      alerts: { sweepMs: 100, deliveryPollMs: 50, allowPrivateTargets: true },
    },
    { parts: { alerts: true } },
  )
}, 120_000)
afterAll(async () => {
  await server?.stop()
  await receiver?.close()
  await cleanupProcesses()
  removeDirs([dataDir, configDir])
})

it('set, list, deliveries and the audit, while the server runs', async () => {
  const { account, key } = await server.newKey('tiny')
  const bad = await cli('alerts', 'set', '--account', account.email, '--webhook', 'ftp://example.com/')
  expect([bad.code, bad.stderr.trim()]).toEqual([1, 'error: webhookUrl: only http(s) URLs'])
  const set = await cli('alerts', 'set', '--account', account.email, '--at', '50', '--webhook', receiver.url)
  expect(set.code).toBe(0)
  const secret = /^(whsec_\S+)$/m.exec(set.stdout)?.[1]
  expect(secret).toBeDefined()
  const list = await cli('alerts', 'list', '--json')
  expect(JSON.parse(list.stdout)).toEqual([
    expect.objectContaining({ accountId: account.id, creditThresholds: [50], webhookUrl: receiver.url }),
  ])
  expect(list.stdout).not.toContain(secret!)

  for (let i = 0; i < 5; i++)
    expect(
      (await server.rpc(call('eth_getBalance', [`0x${'1'.padStart(40, '0')}`, 'latest']), { key: key.key })).status,
    ).toBe(200)
  const end = Date.now() + 20_000
  while (receiver.received.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50))
  const [hook] = receiver.received
  expect(verifySignature(secret!, hook!.body, signed(hook!))).toBe(true)
  expect(JSON.parse(hook!.body)).toMatchObject({ threshold: 50, used: 400, balance: 800 })

  const deliveries = await cli('alerts', 'deliveries', '--account', account.id, '--json')
  const [alert] = JSON.parse(deliveries.stdout)
  expect(alert).toMatchObject({ kind: 'credits', threshold: 50, status: 'delivered', attempts: 1 })
  expect(alert.attemptLog).toEqual([expect.objectContaining({ attempt: 1, status: 200, error: null })])
  const text = await cli('alerts', 'deliveries')
  expect(text.stdout).toMatch(/50 % of the daily balance\s+delivered \(1 attempt\)/)

  const audit = await cli('audit', '--json')
  const entry = JSON.parse(audit.stdout).find(
    (e: { action: string; status: number }) => e.action === 'cli alerts set' && e.status === 200,
  )
  expect(entry.summary).toBe(`--at 50 --webhook ${new URL(receiver.url).origin}/…`)
  expect(audit.stdout).not.toContain('T0KEN-IN-PATH')
}, 120_000)
