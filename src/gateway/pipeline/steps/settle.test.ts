/**
 * Step 5 on its own over the real memory limit store, cost table and metrics, with a ledger that keeps its records:
 * what each kind of ending charges (refunds, the input-error fee within the day's balance) and what it counts.
 */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../../config/load.ts'
import { createCostTable } from '../../../credits/costs.ts'
import { createMemoryLimitStore, type KeyLimits } from '../../../credits/limits/memory.ts'
import type { KeyEntry } from '../../../keys/snapshot.ts'
import { createMetrics } from '../../../observability/metrics.ts'
import type { UsageLedger, UsageRecord } from '../../../usage/ledger.ts'
import type { RequestRecorder } from '../../../usage/requests/recorder.ts'
import type { UpstreamCall, UpstreamUsage } from '../../../usage/upstream-usage.ts'
import { createSettle } from './settle.ts'

const NOW = Date.UTC(2026, 0, 1, 12)
const config = parseConfig({ networks: [{ name: 'net', chainId: 1, upstreams: [{ url: 'http://node.invalid' }] }] })
const costs = createCostTable(config.credits, ['net'])

function setup(perDay = 1000, keyPerDay: number | null = null) {
  const limits = createMemoryLimitStore()
  const rows: UsageRecord[] = []
  const ledger: UsageLedger = { record: (r) => void rows.push(r), flush() {}, start() {}, stop: async () => {} }
  const metrics = createMetrics(['eth_call', 'eth_blockNumber'])
  const upstreamRows: UpstreamCall[] = []
  const upstreamUsage = { record: (c: UpstreamCall) => void upstreamRows.push({ ...c }) } as unknown as UpstreamUsage
  const refusedRecords: unknown[][] = []
  const requests = { refused: (...args: unknown[]) => void refusedRecords.push(args) } as unknown as RequestRecorder
  const keyLimits: KeyLimits = {
    accountId: 'acc',
    keyId: 'key',
    accountCreditsPerDay: perDay,
    accountCreditsPerSecond: 1_000_000,
    keyCreditsPerDay: keyPerDay,
    keyCreditsPerSecond: null,
  }
  const entry = { id: 'key', accountId: 'acc', limits: keyLimits } as KeyEntry
  const settle = createSettle({
    costs,
    limits,
    ledger,
    metrics,
    clock: { now: () => NOW },
    upstreamUsage,
    requests,
  })
  /** One series' value from the metrics text (0 when absent). */
  const metric = async (series: string) => {
    const line = (await metrics.registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `))
    return line === undefined ? 0 : Number(line.slice(series.length + 1))
  }
  return { limits, rows, settle, entry, keyLimits, metric, upstreamRows, refusedRecords }
}

describe('settle step', () => {
  it('finish refunds what was reserved beyond the charge, adds what the charge exceeds, and counts the charge', async () => {
    const { limits, settle, entry, keyLimits, metric } = setup()
    expect(limits.admit(keyLimits, 100, NOW)).toBeNull()
    settle.finish(entry, 'net', 100, 30, NOW)
    expect(limits.usedToday('acc', NOW)).toBe(30)
    expect(limits.keyUsedToday('key', NOW)).toBe(30)
    expect(limits.admit(keyLimits, 50, NOW)).toBeNull()
    settle.finish(entry, 'net', 50, 80, NOW)
    expect(limits.usedToday('acc', NOW)).toBe(110)
    settle.finish(entry, 'net', 0, 0, NOW) // a free answer: nothing moves
    expect(limits.usedToday('acc', NOW)).toBe(110)
    expect(await metric('chaingate_credits_charged_total{network="net"}')).toBe(110)
  })

  it("charges the input-error fee, never beyond the day's balance, and records it as the refused method", async () => {
    const { limits, rows, settle, entry, keyLimits, metric, refusedRecords } = setup(102)
    expect(costs.inputError).toBe(5)
    expect(settle.inputError(entry, 'net', 'NETWORK_NOT_ENABLED', 'eth_call')).toBe(5)
    expect(limits.usedToday('acc', NOW)).toBe(5)
    expect(limits.admit(keyLimits, 95, NOW)).toBeNull()
    // 2 credits left: the fee is what is left, then nothing at all.
    expect(settle.inputError(entry, 'net', 'PARSE_ERROR')).toBe(2)
    expect(settle.inputError(entry, 'net', 'PARSE_ERROR')).toBe(0)
    expect(limits.usedToday('acc', NOW)).toBe(102)
    expect(rows).toEqual([
      {
        accountId: 'acc',
        keyId: 'key',
        network: 'net',
        method: 'eth_call',
        calls: 1,
        credits: 5,
        errors: 1,
        errorKind: 'http:401',
      },
      { ...rows[0], method: '(invalid)', credits: 2, errorKind: 'http:400' },
      { ...rows[0], method: '(invalid)', credits: 0, errorKind: 'http:400' },
    ])
    expect(refusedRecords).toEqual([
      [entry, 'net', 'eth_call', 'http:401', 5],
      [entry, 'net', '(invalid)', 'http:400', 2],
      [entry, 'net', '(invalid)', 'http:400', 0],
    ])
    expect(await metric('chaingate_credits_charged_total{network="net"}')).toBe(7)
  })

  it("the input-error fee stays within the key's own daily limit too", () => {
    const { limits, settle, entry, keyLimits } = setup(1000, 3)
    expect(settle.inputError(entry, 'net', 'SECRET_INVALID')).toBe(3)
    expect(limits.keyUsedToday('key', NOW)).toBe(3)
    expect(limits.admit(keyLimits, 1, NOW)).toBe('KEY_DAILY_CREDITS_EXHAUSTED')
  })

  it('a limit refusal is one free usage row with every call an error, each call counted, the refusal counted', async () => {
    const { limits, rows, settle, entry, metric } = setup()
    settle.limited({
      entry,
      network: 'net',
      code: 'ACCOUNT_THROUGHPUT_EXCEEDED',
      method: 'batch',
      methods: ['eth_call', 'eth_call', 'eth_blockNumber'],
      now: NOW,
    })
    expect(rows).toEqual([
      {
        accountId: 'acc',
        keyId: 'key',
        network: 'net',
        method: 'batch',
        calls: 3,
        credits: 0,
        errors: 3,
        errorKind: 'http:429',
      },
    ])
    expect(limits.usedToday('acc', NOW)).toBe(0)
    expect(await metric('chaingate_requests_total{network="net",method="eth_call",outcome="http_429"}')).toBe(2)
    expect(await metric('chaingate_requests_total{network="net",method="eth_blockNumber",outcome="http_429"}')).toBe(1)
    expect(await metric('chaingate_credits_refused_total{network="net",reason="account_throughput_exceeded"}')).toBe(1)
    settle.limited({
      entry,
      network: 'net',
      code: 'DAILY_CREDITS_EXHAUSTED',
      method: 'eth_call',
      methods: ['eth_call'],
      now: NOW,
    })
    expect(rows[1]).toMatchObject({ calls: 1, errors: 1, errorKind: 'http:402' })
    expect(await metric('chaingate_credits_refused_total{network="net",reason="daily_credits_exhausted"}')).toBe(1)
  })

  it('a call is one usage row (an error unless ok) and one request counted by outcome', async () => {
    const { rows, settle, entry, metric } = setup()
    const call = { entry, network: 'net', method: 'eth_call', now: NOW }
    settle.call({ ...call, credits: 20, outcome: 'ok', errorKind: undefined })
    settle.call({ ...call, credits: 20, outcome: 'error', errorKind: 'rpc:3' })
    settle.call({ ...call, credits: 0, outcome: 'unavailable', errorKind: 'http:503' })
    expect(rows.map((r) => [r.method, r.calls, r.credits, r.errors, r.errorKind])).toEqual([
      ['eth_call', 1, 20, 0, undefined],
      ['eth_call', 1, 20, 1, 'rpc:3'],
      ['eth_call', 1, 0, 1, 'http:503'],
    ])
    expect(await metric('chaingate_requests_total{network="net",method="eth_call",outcome="ok"}')).toBe(1)
    expect(await metric('chaingate_requests_total{network="net",method="eth_call",outcome="error"}')).toBe(1)
    expect(await metric('chaingate_requests_total{network="net",method="eth_call",outcome="unavailable"}')).toBe(1)
    // settle.call records; the charge itself is finish's.
    expect(await metric('chaingate_credits_charged_total{network="net"}')).toBe(0)
  })

  it("a batch's envelope is a row of no calls; events count as calls and their credits as charged", async () => {
    const { rows, settle, entry, metric } = setup()
    settle.envelope(entry, 'net', 4, NOW)
    settle.event({ entry, network: 'net', label: 'eth_subscription:newHeads', credits: 30, now: NOW, events: 3 })
    settle.event({ entry, network: 'net', label: 'eth_subscription:logs', credits: 10, now: NOW })
    expect(rows.map((r) => [r.method, r.calls, r.credits, r.errors])).toEqual([
      ['batch', 0, 4, 0],
      ['eth_subscription:newHeads', 3, 30, 0],
      ['eth_subscription:logs', 1, 10, 0],
    ])
    // The envelope's credits are counted by finish with the batch's; the events' here.
    expect(await metric('chaingate_credits_charged_total{network="net"}')).toBe(40)
  })

  it('a refusal before the key is known is counted, not charged; the upstream side goes to upstream usage', async () => {
    const { rows, settle, metric, upstreamRows } = setup()
    settle.refused('net', 'KEY_INVALID')
    expect(rows).toEqual([])
    expect(await metric('chaingate_requests_total{network="net",method="(refused)",outcome="http_401"}')).toBe(1)
    settle.upstream({
      network: 'net',
      method: 'eth_call',
      upstream: 'http://127.0.0.1:1',
      attempts: 2,
      source: undefined,
      credits: 20,
      failed: false,
      now: NOW,
    })
    expect(upstreamRows).toEqual([
      {
        network: 'net',
        upstream: 'http://127.0.0.1:1',
        method: 'eth_call',
        attempts: 2,
        source: undefined,
        credits: 20,
        failed: false,
        now: NOW,
      },
    ])
  })
})
