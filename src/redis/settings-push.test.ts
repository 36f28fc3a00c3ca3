import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeWithServices, redisUrl } from '../../test/support/services.ts'
import { createAccountsRepository } from '../accounts/repository.ts'
import { createKeysRepository } from '../keys/repository.ts'
import { createKeySnapshot, type KeySnapshot } from '../keys/snapshot.ts'
import { loadAllKeySecurity } from '../keys/security/repository.ts'
import { DEFAULT_PLANS } from '../config/schema.ts'
import { openDatabase, type OpenedDatabase } from '../db/database.ts'
import { attachSettingsPush, type AttachedSettingsPush } from './settings-push-attach.ts'
import { createRedisSettingsPush } from './settings-push.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function within<T>(ms: number, check: () => T | undefined | false): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = check()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error(`not seen within ${ms} ms`)
    await sleep(10)
  }
}

describeWithServices(['redis'], 'settings changes pushed over Redis pub/sub', () => {
  // Two "replicas": each its own database handle on one file, its own snapshot and subscription. Their polls are an
  // hour apart, so only the push can make them see a change in time.
  const prefix = `test-${randomBytes(4).toString('hex')}:`
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-push-'))
  const replicas: { opened: OpenedDatabase; snapshot: KeySnapshot; push: AttachedSettingsPush }[] = []
  const reloads = [0, 0]

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const opened = await openDatabase(join(dir, 'chaingate.sqlite'))
      const snapshot = createKeySnapshot(opened.db, {
        plans: DEFAULT_PLANS,
        pollMs: 3_600_000,
        loadSecurity: loadAllKeySecurity,
        onError: () => {},
      })
      await snapshot.reload()
      snapshot.onReload(() => reloads[i]!++)
      snapshot.start()
      const push = await attachSettingsPush({ url: redisUrl, keyPrefix: prefix, db: opened.db, snapshot })
      replicas.push({ opened, snapshot, push })
    }
  })
  afterAll(async () => {
    for (const r of replicas) {
      r.snapshot.stop()
      await r.push.close()
      await r.opened.close()
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it('a key created and then revoked on replica 0 is served and then refused by replica 1 within 1 s', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]]
    const accounts = createAccountsRepository(a.opened.db, DEFAULT_PLANS)
    const keys = createKeysRepository(a.opened.db, { networks: ['devnet-a', 'devnet-b'], plans: DEFAULT_PLANS })
    const account = await accounts.create(
      { email: `push-${randomBytes(3).toString('hex')}@example.com`, plan: 'free' },
      Date.now(),
    )
    const key = await keys.create({ accountId: account.id, name: 'k' }, Date.now())
    let t0 = Date.now()
    await within(1000, () => b.snapshot.get(key.key))
    const seenMs = Date.now() - t0

    await keys.setNetwork(key.id, 'devnet-b', false)
    await within(1000, () => !b.snapshot.get(key.key)!.networks.has('devnet-b'))
    await keys.setLimits(key.id, { creditsPerSecond: 77 })
    await within(1000, () => b.snapshot.get(key.key)!.limits.keyCreditsPerSecond === 77)

    t0 = Date.now()
    await keys.revoke(key.id, Date.now())
    await within(1000, () => b.snapshot.get(key.key) === undefined)
    // The writer's own replica hears its message too (each subscriber hears it in its own time).
    await within(1000, () => a.snapshot.get(key.key) === undefined)
    expect(seenMs).toBeLessThan(1000)
  })

  it('a publisher without a snapshot (the CLI) makes every subscribed replica reload', async () => {
    const before = [...reloads]
    // The CLI's own handle on the database: a bump through it publishes, nothing else is subscribed.
    const cli = await openDatabase(join(dir, 'chaingate.sqlite'))
    const attached = await attachSettingsPush({ url: redisUrl, keyPrefix: prefix, db: cli.db })
    try {
      const accounts = createAccountsRepository(cli.db, DEFAULT_PLANS)
      const keys = createKeysRepository(cli.db, { networks: ['devnet-a'], plans: DEFAULT_PLANS })
      const account = await accounts.create(
        { email: `cli-${randomBytes(3).toString('hex')}@example.com`, plan: 'free' },
        Date.now(),
      )
      const key = await keys.create({ accountId: account.id, name: 'from-cli' }, Date.now())
      for (const r of replicas) await within(1000, () => r.snapshot.get(key.key))
      expect(reloads[0]).toBeGreaterThan(before[0]!)
      expect(reloads[1]).toBeGreaterThan(before[1]!)
    } finally {
      await attached.close()
      await cli.close()
    }
  })

  it('another deployment on the same Redis (another key prefix) does not make these replicas reload', async () => {
    const other = createRedisSettingsPush({ url: redisUrl, channel: `other-${prefix}settings-changed` })
    try {
      await sleep(200)
      const before = [...reloads]
      await other.publish()
      await sleep(300)
      expect(reloads).toEqual(before)
    } finally {
      await other.close()
    }
  })

  it('a publish while Redis is unreachable gives up within its timeout instead of hanging the writer', async () => {
    const errors: unknown[] = []
    const dead = createRedisSettingsPush({
      url: 'redis://127.0.0.1:1',
      channel: 'x',
      publishTimeoutMs: 500,
      onError: (e) => errors.push(e),
    })
    const t0 = Date.now()
    await dead.publish()
    expect(Date.now() - t0).toBeLessThan(5000)
    expect(errors.length).toBeGreaterThan(0)
    await dead.close()
  })
})
