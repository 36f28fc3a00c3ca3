/**
 * What the Redis limit store's test files share: key limits, replicas of the store on one real Redis (each under
 * its own key prefix; a file's clean-up deletes only its own prefixes, as the files run at the same time), and
 * reading what Redis counts.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, expect } from 'vitest'
import { redisUrl } from '../../../../test/support/services.ts'
import { connectRedis, type RedisConnection } from '../../../redis/connection.ts'
import { utcDay, type KeyLimits } from '../memory.ts'
import { createRedisLimitStore, type RedisLimitStore } from './store.ts'

export const limits = (over: Partial<KeyLimits> = {}): KeyLimits => ({
  accountId: 'acc',
  keyId: 'key',
  accountCreditsPerDay: 10_000,
  accountCreditsPerSecond: 1_000_000,
  keyCreditsPerDay: null,
  keyCreditsPerSecond: null,
  ...over,
})

export const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0

/** Replicas of the store for one test file: closed after each test, their keys deleted after the file. */
export function redisReplicas() {
  const opened: { close(): Promise<void> }[] = []
  const prefixes: string[] = []
  afterEach(async () => {
    for (const c of opened.splice(0).reverse()) await c.close()
  })
  afterAll(async () => {
    if (prefixes.length === 0) return
    const conn = await connectRedis({ url: redisUrl, prefix: 'x', commandTimeoutMs: 1000 })
    const left = (await Promise.all(prefixes.map((p) => conn.client.keys(`${p}*`)))).flat()
    if (left.length) await conn.client.del(...left)
    await conn.close()
  })
  const newPrefix = () => {
    const prefix = `test:limits:${randomBytes(6).toString('hex')}:`
    prefixes.push(prefix)
    return prefix
  }
  async function replica(
    prefix: string,
    over: { leaseCredits?: number; insuranceShare?: number; url?: string } = {},
  ): Promise<{ store: RedisLimitStore; conn: RedisConnection }> {
    const conn = await connectRedis({ url: over.url ?? redisUrl, prefix, commandTimeoutMs: 300 })
    const store = createRedisLimitStore({
      connection: conn,
      leaseCredits: over.leaseCredits ?? 1000,
      leaseSyncMs: 200,
      insuranceShare: over.insuranceShare ?? 0.5,
    })
    opened.push(conn, { close: () => store.stop() })
    return { store, conn }
  }
  return { opened, newPrefix, replica }
}

/** Redis's day counter for an account (what every replica charged, plus leases not yet handed back). */
export async function redisUsed(conn: RedisConnection, accountId: string, nowMs: number): Promise<number> {
  return Number((await conn.client.get(`${conn.prefix}d:${utcDay(nowMs)}:a:${accountId}`)) ?? 0)
}

/** Calls until the store refuses `stopAfter` times in a row; returns the credits it admitted. */
export async function hammer(
  store: RedisLimitStore,
  r: KeyLimits,
  price: () => number,
  nowMs: () => number,
  stopAfter = 20,
): Promise<number> {
  let charged = 0
  let refusals = 0
  while (refusals < stopAfter) {
    const credits = price()
    const code = await store.admit(r, credits, nowMs())
    if (code === null) {
      charged += credits
      refusals = 0
    } else {
      expect(code).toBe('DAILY_CREDITS_EXHAUSTED')
      refusals++
    }
  }
  return charged
}

/** Waits until the replica's heartbeat has expired and another replica's reaper has returned its lease record. */
export async function reaped(conn: RedisConnection, prefix: string, replicaId: string, sync: () => Promise<boolean>) {
  const opts = { timeout: 20_000, interval: 100 }
  await expect.poll(() => conn.client.exists(`${prefix}alive:${replicaId}`), opts).toBe(0)
  await expect
    .poll(async () => (await sync()) && (await conn.client.exists(`${prefix}reaped:${replicaId}`)), opts)
    .toBe(1)
}
