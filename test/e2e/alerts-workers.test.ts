/**
 * Usage alerts under `chaingate start --workers 2` as real processes (SQLite data dir, Redis): set with the CLI while
 * it runs, a key's balance spent by calls spread over both workers, each threshold's webhook sent once though every
 * worker sweeps; and a delivery pending when the server stops (its first attempt got a 503) is sent by the next start.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { request } from 'undici'
import { verifySignature } from '../../src/alerts/webhook.ts'
import {
  cleanupProcesses,
  removeDirs,
  runCli,
  sleep,
  startChaingate,
  tempDir,
  waitFor,
  writeConfig,
} from './helpers/process.ts'
import { describeWithServices, redisUrl } from '../support/services.ts'
import { signed, startReceiver, type Receiver } from '../support/webhook-receiver.ts'

const dir = tempDir('chaingate-alerts-workers-')
const data = join(dir, 'data')
let receiver: Receiver | undefined
afterAll(async () => {
  await cleanupProcesses([data])
  await receiver?.close()
  removeDirs([dir])
}, 60_000)

/** One eth_getBalance (80 credits) on a fresh connection, so node:cluster hands it to the next worker. */
async function spend(url: string): Promise<number> {
  const res = await request(url, {
    method: 'POST',
    reset: true,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getBalance',
      params: ['0x0000000000000000000000000000000000000001', 'latest'],
    }),
  })
  await res.body.dump()
  return res.statusCode
}

describeWithServices(['redis'], 'usage alerts with --workers 2', () => {
  it('each threshold sent once by the workers; a pending delivery resumed after a restart', async () => {
    receiver = await startReceiver()
    const file = writeConfig(dir, 'chaingate.yaml', {
      gateway: { port: 0, usageFlushMs: 200 },
      networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }],
      wallet: { enabled: false },
      // Per-call admission: the balance is exact whichever worker makes the last call.
      redis: { url: redisUrl, keyPrefix: `test-alerts-workers-${randomBytes(4).toString('hex')}:`, leaseCredits: 0 },
      log: { requests: false },
      plans: { tiny: { creditsPerDay: 800, creditsPerSecond: 100_000, maxKeys: null } },
      // The receiver listens on 127.0.0.1: the operator's opt-in for private targets (docs/alerts.md, "SSRF").
      alerts: { sweepMs: 100, deliveryPollMs: 100, backoffBaseMs: 8000, backoffMaxMs: 8000, allowPrivateTargets: true },
    })
    const cli = async (...args: string[]) => {
      const r = await runCli([...args, '--config', file, '--data-dir', data], { timeoutMs: 60_000 })
      expect(r.code, r.stderr).toBe(0)
      return r.stdout
    }
    const start = () => startChaingate(['--config', file, '--data-dir', data, '--workers', '2'], { timeoutMs: 120_000 })
    let cg = await start()
    await cli('account', 'create', '--email', 'workers@example.com', '--plan', 'tiny')
    const key = JSON.parse(await cli('key', 'create', '--account', 'workers@example.com', '--json'))
    const set = await cli(
      'alerts',
      'set',
      '--account',
      'workers@example.com',
      '--at',
      '50,100',
      '--webhook',
      receiver.url,
    )
    const secret = /^(whsec_\S+)$/m.exec(set)![1]!
    const url = `${cg.banner.gatewayUrl}/networks/devnet-a/v3/${key.key}`
    await waitFor(async () => (await spend(url)) === 200, 5000, 'the new key served', 50)
    for (let i = 1; i < 5; i++) expect(await spend(url)).toBe(200) // 400 of 800: 50 %
    await waitFor(() => receiver!.received.length >= 1, 20_000, 'the 50 % webhook', 25)
    receiver.answer(503) // the 100 % webhook's first attempt fails; its retry is 8 s away
    for (let i = 0; i < 5; i++) expect(await spend(url)).toBe(200)
    await waitFor(() => receiver!.received.length >= 2, 20_000, 'the 100 % webhook', 25)
    expect(receiver.received[1]!.status).toBe(503)
    await cg.signal('SIGTERM', 60_000) // before the retry

    const stopped = JSON.parse(await cli('alerts', 'deliveries', '--json'))
    expect(stopped.map((a: { threshold: number; status: string }) => [a.threshold, a.status]).sort()).toEqual([
      [100, 'pending'],
      [50, 'delivered'],
    ])
    cg = await start()
    await waitFor(() => receiver!.received.length >= 3, 30_000, 'the 100 % webhook after the restart', 25)
    await sleep(1000) // more sweeps by both workers: nothing else is sent
    const bodies = receiver.received.map((r) => JSON.parse(r.body) as { threshold: number; id: string })
    expect(bodies.map((b) => b.threshold)).toEqual([50, 100, 100])
    expect(bodies[1]!.id).toBe(bodies[2]!.id)
    for (const r of receiver.received) expect(verifySignature(secret, r.body, signed(r), { nowMs: r.at })).toBe(true)
    const after = JSON.parse(await cli('alerts', 'deliveries', '--json'))
    expect(after.find((a: { threshold: number }) => a.threshold === 100)).toMatchObject({
      status: 'delivered',
      attempts: 2,
    })
    await cg.signal('SIGTERM', 60_000)
    expect(cg.stdout() + cg.stderr()).not.toContain(secret)
  }, 240_000)
})
