/**
 * Usage alerts against a real webhook receiver (node:http on port 0) and a real database (SQLite, and PostgreSQL when
 * it runs): the signature verifies with the account's secret, a 500 is retried after the backoff and a 200 ends it,
 * a 4xx is final but a 429 is retried, a timeout is retried, every attempt is in the delivery log, a pending
 * delivery is resumed by a new deliverer (a restart), and two sweeps on one database fire one alert per threshold.
 */
import { createHmac } from 'node:crypto'
import { afterEach, expect, it } from 'vitest'
import { createAccountsRepository } from '../accounts/repository.ts'
import type { OpenedDatabase } from '../db/database.ts'
import { describeEachDatabase } from '../../test/support/databases.ts'
import { signed, startReceiver, type Receiver } from '../../test/support/webhook-receiver.ts'
import { createDeliverer } from './deliverer.ts'
import { createAlertLog } from './log.ts'
import { createAlertSettingsRepository } from './settings.ts'
import { createSweep } from './sweep.ts'
import { backoffMs, verifySignature } from './webhook.ts'

const PLANS = { small: { creditsPerDay: 1000, creditsPerSecond: 100, maxKeys: null } }
const quiet = { warn: () => {}, error: () => {} }
const waitFor = async (cond: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describeEachDatabase('usage alerts: delivery', (open) => {
  let opened: OpenedDatabase | undefined
  let receiver: Receiver | undefined
  const stops: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const s of stops.splice(0)) await s()
    await receiver?.close()
    await opened?.close()
    opened = receiver = undefined
  })

  async function setup(
    opts: { timeoutMs?: number; maxAttempts?: number; allowedHosts?: string[]; allowPrivateTargets?: boolean } = {},
  ) {
    opened = await open()
    receiver = await startReceiver()
    const db = opened.db
    const account = await createAccountsRepository(db, PLANS).create({ email: 'a@example.com', plan: 'small' }, 1)
    // The receiver is on 127.0.0.1: saved under the operator's opt-in for private targets.
    const settings = createAlertSettingsRepository(db, { allowedHosts: null, allowPrivateTargets: true })
    const log = createAlertLog(db)
    const { secret } = await settings.set(
      account.id,
      { creditThresholds: [80, 100], webhookUrl: receiver.url },
      Date.now(),
    )
    const config = {
      timeoutMs: opts.timeoutMs ?? 2000,
      maxAttempts: opts.maxAttempts ?? 5,
      backoffBaseMs: 100,
      backoffMaxMs: 1000,
      deliveryPollMs: 20,
      allowedHosts: opts.allowedHosts ?? null,
      allowPrivateTargets: opts.allowPrivateTargets ?? true,
    }
    const warnings: { obj: Record<string, unknown>; msg: string | undefined }[] = []
    const logger = { ...quiet, warn: (obj: object, msg?: string) => warnings.push({ obj: { ...obj }, msg }) }
    const deliverer = () => {
      const d = createDeliverer({ log, settings, config, clock: Date, logger })
      stops.push(() => d.stop())
      return d
    }
    let used = 0
    const usageOf = () => ({
      usedToday: () => used,
      keyUsedToday: () => 0,
    })
    const sweep = (onClaimed = () => {}) =>
      createSweep({ db, settings, log, plans: PLANS, limits: usageOf() as never, clock: Date, onClaimed })
    const spend = (n: number) => (used = n)
    return { db, account, settings, log, secret: secret!, deliverer, sweep, spend, warnings }
  }

  it('signs the body, retries a 500 after the backoff, and logs every attempt', async () => {
    const s = await setup()
    const d = s.deliverer()
    d.start()
    s.spend(850)
    receiver!.answer(500)
    const claimed = await s.sweep(() => d.kick()).run()
    expect(claimed.map((p) => p.threshold)).toEqual([80])
    await waitFor(() => receiver!.received.length === 2)
    const [first, second] = receiver!.received
    expect(first!.body).toBe(second!.body)
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(100)
    const body = JSON.parse(first!.body)
    expect(body).toMatchObject({ type: 'credits.threshold', accountId: s.account.id, threshold: 80, used: 850 })
    expect(body).toMatchObject({ balance: 1000, remaining: 150, day: new Date().toISOString().slice(0, 10) })
    // The receiver's check, exactly as docs/alerts.md writes it: over `<timestamp>.<raw body>`.
    const timestamp = first!.headers['x-chaingate-timestamp'] as string
    const hex = createHmac('sha256', s.secret).update(`${timestamp}.${first!.body}`).digest('hex')
    expect(first!.headers['x-chaingate-signature']).toBe(`sha256=${hex}`)
    expect(verifySignature(s.secret, first!.body, signed(first!))).toBe(true)
    expect(verifySignature(`${s.secret}x`, first!.body, signed(first!))).toBe(false)
    expect(Number(timestamp)).toBeGreaterThan(Date.now() / 1000 - 60)
    expect(first!.headers['x-chaingate-alert-id']).toBe(body.id)
    await waitFor(async () => (await s.log.recent(s.account.id, 5))[0]?.status === 'delivered')
    const [alert] = await s.log.recent(s.account.id, 5)
    expect(alert).toMatchObject({ attempts: 2, lastStatus: 200, lastError: null, nextAttemptAt: null })
    const attempts = await s.log.attempts(alert!.id)
    expect(attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 200, null],
    ])
    // The secret is never in the log.
    expect(JSON.stringify({ alert, attempts })).not.toContain(s.secret)
  })

  it('a 4xx is final; a 429 and a timeout are retried; the last attempt fails for good', async () => {
    const s = await setup({ timeoutMs: 300, maxAttempts: 3 })
    const d = s.deliverer()
    d.start()
    receiver!.answer(429, 'hang', 400)
    s.spend(1000)
    expect((await s.sweep(() => d.kick()).run()).map((p) => p.threshold)).toEqual([80, 100])
    await waitFor(async () => (await s.log.recent(s.account.id, 5)).every((a) => a.status !== 'pending'))
    const byThreshold = new Map((await s.log.recent(s.account.id, 5)).map((a) => [a.threshold, a]))
    const all = [...byThreshold.values()]
    // Three answers went to two alerts: 429 (retried), a hang (timeout, retried), 400 (final); the rest got 200.
    const errors = (await Promise.all(all.map((a) => s.log.attempts(a.id)))).flat().map((a) => a.error)
    expect(errors).toContain('HTTP 429')
    expect(errors).toContain('no answer within 300 ms')
    expect(errors.filter((e) => e === 'HTTP 400')).toHaveLength(1)
    const failed = all.filter((a) => a.status === 'failed')
    expect(failed).toHaveLength(1)
    expect(failed[0]!.lastError).toBe('HTTP 400')
  })

  it('a stored URL the current rules refuse is not sent: failed, "host no longer allowed"', async () => {
    // Saved when any host was allowed; the operator has set alerts.allowedHosts (or not allowPrivateTargets) since.
    for (const narrowed of [{ allowedHosts: ['hooks.example.com'] }, { allowPrivateTargets: false }]) {
      const s = await setup(narrowed)
      const d = s.deliverer()
      s.spend(900)
      await s.sweep().run()
      await d.runOnce()
      expect(receiver!.received).toEqual([])
      const [alert] = await s.log.recent(s.account.id, 5)
      expect(alert).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastStatus: null,
        lastError: 'host no longer allowed',
      })
      expect(s.warnings.map((w) => w.msg)).toEqual([
        'alert webhook refused: host no longer allowed',
        'alert webhook failed for good',
      ])
      for (const stop of stops.splice(0)) await stop()
      await receiver!.close()
      await opened!.close()
    }
    opened = receiver = undefined
  })

  it('a connection error: the account reads "connection failed", the server log has the socket error', async () => {
    const s = await setup()
    const closed = await startReceiver()
    await closed.close() // a port nothing listens on
    await s.settings.set(s.account.id, { webhookUrl: closed.url }, Date.now())
    s.spend(900)
    await s.sweep().run()
    await s.deliverer().runOnce()
    const [alert] = await s.log.recent(s.account.id, 5)
    expect(alert).toMatchObject({ status: 'pending', attempts: 1, lastStatus: null, lastError: 'connection failed' })
    expect(JSON.stringify(await s.log.attempts(alert!.id))).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/)
    const warning = s.warnings.find((w) => w.msg === 'alert webhook: connection failed')
    expect(warning?.obj).toMatchObject({ alertId: alert!.id, error: expect.stringContaining('ECONNREFUSED') })
  })

  it('a pending delivery survives a restart: a new deliverer sends it', async () => {
    const s = await setup()
    receiver!.answer(503)
    s.spend(900)
    const first = s.deliverer()
    await s.sweep().run()
    await first.runOnce()
    await first.stop()
    expect(receiver!.received).toHaveLength(1)
    const [pending] = await s.log.recent(s.account.id, 5)
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 503 })
    const second = s.deliverer()
    second.start()
    await waitFor(() => receiver!.received.length === 2)
    await waitFor(async () => (await s.log.recent(s.account.id, 5))[0]?.status === 'delivered')
  })

  it('a process that read a delivery as due before another tried it cannot take it: one attempt per backoff', async () => {
    const s = await setup()
    receiver!.answer(503)
    s.spend(900)
    await s.sweep().run()
    const now = Date.now()
    const [due] = await s.log.due(now, 10)
    // Process A takes it, is answered 503 and records the retry 8 s away; process B read the same row as due before.
    expect(await s.log.lock(due!.id, now, now + 10_000)).toBe(true)
    await s.log.record(due!.id, {
      attempt: { attempt: 1, at: now, status: 503, error: null, durationMs: 5 },
      status: 'pending',
      nextAttemptAt: now + 8000,
    })
    expect(await s.log.lock(due!.id, now + 10, now + 10_010)).toBe(false)
    expect(await s.log.due(now + 10, 10)).toEqual([])
    expect(await s.log.lock(due!.id, now + 8000, now + 18_000)).toBe(true)
  })

  it('prune deletes old alerts that are no longer pending, with their attempts', async () => {
    const s = await setup()
    const base = { accountId: s.account.id, kind: 'credits' as const, payload: '{}', nextAttemptAt: null }
    const old = Date.now() - 100 * 86_400_000
    await s.log.claim({ ...base, id: 'old-done', threshold: 80, day: 1, createdAt: old, status: 'none' })
    await s.log.claim({ ...base, id: 'old-pending', threshold: 100, day: 1, createdAt: old, status: 'pending' })
    await s.log.claim({ ...base, id: 'new', threshold: 80, day: 2, createdAt: Date.now(), status: 'none' })
    await s.log.record('old-done', {
      attempt: { attempt: 1, at: old, status: 500, error: 'HTTP 500', durationMs: 1 },
      status: 'failed',
      nextAttemptAt: null,
    })
    expect(await s.log.prune(Date.now() - 90 * 86_400_000)).toBe(1)
    expect((await s.log.recent(s.account.id, 10)).map((a) => a.id).sort()).toEqual(['new', 'old-pending'])
    expect(await s.log.attempts('old-done')).toEqual([])
  })

  it('two sweeps (two processes) on one database: one alert per threshold per day', async () => {
    const s = await setup()
    s.spend(1000)
    const a = s.sweep()
    const b = s.sweep()
    const results = await Promise.all([a.run(), b.run(), a.run(), b.run()])
    expect(
      results
        .flat()
        .map((p) => p.threshold)
        .sort(),
    ).toEqual([100, 80])
    expect(await a.run()).toEqual([])
    expect(await s.sweep().run()).toEqual([])
    const rows = await s.log.recent(s.account.id, 10)
    expect(rows.map((r) => r.threshold).sort()).toEqual([100, 80])
  })
})

it('backoff doubles from the base, caps at the maximum and honours Retry-After', () => {
  const o = { baseMs: 100, maxMs: 1000 }
  expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, o, undefined, () => 0))).toEqual([100, 200, 400, 800, 1000])
  expect(backoffMs(1, o, undefined, () => 1)).toBe(120)
  expect(backoffMs(1, o, 700, () => 0)).toBe(700)
  expect(backoffMs(1, o, 60_000, () => 0)).toBe(1000)
})
