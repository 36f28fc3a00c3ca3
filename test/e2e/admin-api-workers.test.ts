/**
 * The admin API under `chaingate start --workers 2` as real processes: mounted in every worker, with the token from
 * the environment through `${VAR}` in the config; a key created or revoked through it (on whichever worker took the
 * call) is served or refused by every worker within a second — pushed over Redis, the poll a minute apart.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { request } from 'undici'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { cleanupProcesses, removeDirs, startChaingate, tempDir, waitFor, writeConfig } from './helpers/process.ts'
import { describeWithServices, redisUrl } from '../support/services.ts'

const dir = tempDir('chaingate-admin-workers-')
const data = join(dir, 'data')
afterAll(async () => {
  await cleanupProcesses([data])
  removeDirs([dir])
}, 60_000)

/** One call on a fresh connection, so node:cluster hands it to the next worker. */
async function status(url: string): Promise<number> {
  const res = await request(url, {
    method: 'POST',
    reset: true,
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
  })
  await res.body.dump()
  return res.statusCode
}
const everyWorker = async (url: string, expected: number) => {
  for (let i = 0; i < 6; i++) if ((await status(url)) !== expected) return false
  return true
}

describeWithServices(['redis'], 'admin API with --workers 2', () => {
  it('every worker serves the API; its changes reach every worker within a second', async () => {
    process.env.CHAINGATE_TEST_ADMIN_TOKEN = ADMIN_TOKEN
    const file = writeConfig(dir, 'chaingate.yaml', {
      gateway: { port: 0, settingsPushPollMs: 60_000 },
      networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }],
      wallet: { enabled: false },
      redis: { url: redisUrl, keyPrefix: `test-admin-workers-${randomBytes(4).toString('hex')}:` },
      log: { requests: false },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} reference, expanded by chaingate
      admin: { token: '${CHAINGATE_TEST_ADMIN_TOKEN}' },
    })
    const cg = await startChaingate(['--config', file, '--data-dir', data, '--workers', '2'], { timeoutMs: 120_000 })
    const base = cg.banner.gatewayUrl
    expect(cg.bannerText()).toContain(`  admin API: ${base}/admin/v1  (bearer token: admin.token; docs/admin-api.md)`)
    // Fresh connections: each admin call may land on either worker.
    const api = adminClient(base, ADMIN_TOKEN, { connection: 'close' })
    for (let i = 0; i < 4; i++) expect((await api.get('/plans')).status).toBe(200)
    expect((await adminClient(base, 'wrong-token-wrong-token', { connection: 'close' }).get('/plans')).status).toBe(403)

    const account = (await api.post('/accounts', { email: 'workers@example.com' })).body
    const key = (await api.post('/keys', { account: account.id })).body
    const url = `${base}/networks/devnet-a/v3/${key.key}`
    await waitFor(() => everyWorker(url, 200), 1000, 'the new key served by every worker', 50)
    expect((await api.post(`/keys/${key.id}/revoke`)).status).toBe(200)
    await waitFor(() => everyWorker(url, 401), 1000, 'the revoked key refused by every worker', 50)

    const audit = (await api.get(`/audit?target=${key.id}`)).body.entries
    expect(audit.map((e: { action: string }) => e.action)).toEqual([
      'POST /admin/v1/keys/:id/revoke',
      'POST /admin/v1/keys',
    ])
    await cg.signal('SIGTERM', 60_000)
    expect(cg.stdout() + cg.stderr()).not.toContain(ADMIN_TOKEN)
  }, 180_000)
})
