/**
 * Detection: every `alerts.sweepMs` each process compares the accounts that have alerts with their thresholds.
 * Nothing runs per gateway call: the sweep reads today's usage of those accounts in two grouped queries (the usage
 * ledger, written by every replica within `gateway.usageFlushMs`) and this process's limit store (fresher for its
 * own calls; with Redis, the shared totals), and keeps the larger. An alert that is due is claimed in the database
 * (src/alerts/log.ts: one per account, threshold and UTC day, whichever process inserts first) and handed to the
 * deliverer.
 */
import { randomUUID } from 'node:crypto'
import type { Db } from '../db/database.ts'
import type { LimitStore } from '../credits/limits/memory.ts'
import { MS_PER_DAY, utcDay } from '../credits/limits/memory.ts'
import { alertUsageToday } from '../usage/queries.ts'
import type { AlertKind, AlertLog } from './log.ts'
import type { AlertSettingsRepository } from './settings.ts'

/** The webhook's JSON body (docs/alerts.md, "Payload"). */
export interface AlertPayload {
  id: string
  type: 'credits.threshold' | 'refusals.threshold'
  accountId: string
  /** A percentage of the daily balance (credits), or refused calls per minute (refusals). */
  threshold: number
  /** Credits used today (UTC) when the alert fired. */
  used: number
  /** The daily credit balance (the plan's credits per day). */
  balance: number
  remaining: number
  /** Refused calls (402/429) in the last minute when the alert fired. */
  refusedLastMinute: number
  /** The UTC day, YYYY-MM-DD. */
  day: string
  /** When it fired, ISO 8601. */
  time: string
}

export interface SweepDeps {
  db: Db
  settings: AlertSettingsRepository
  log: AlertLog
  plans: Record<string, { creditsPerDay: number }>
  /** This process's counters, when it serves calls. */
  limits?: LimitStore | undefined
  clock: { now(): number }
  /** Told when this process claimed an alert with a webhook to send. */
  onClaimed(): void
  /** How long the list of accounts with alerts is reused before it is read again (0: every sweep). */
  listMaxAgeMs?: number
}

export interface Sweep {
  /** One pass; resolves with the alerts this process claimed. */
  run(): Promise<AlertPayload[]>
}

const WINDOW_MS = 60_000
/**
 * Accounts per usage query. On SQLite a query blocks the event loop while it runs (about 13 µs per account): the
 * sweep yields between chunks so gateway calls are served in between.
 */
const CHUNK = 200
const yieldToCalls = () => new Promise<void>((resolve) => setImmediate(resolve))
type Watched = Awaited<ReturnType<AlertSettingsRepository['list']>>

export function createSweep(deps: SweepDeps): Sweep {
  const { clock } = deps
  // Alerts known to have fired today (claimed here or by another process): not tried again until tomorrow.
  const fired = new Set<string>()
  let firedDay = -1
  // Per account, samples of today's refused total over the last minute: the rate is newest minus oldest.
  const samples = new Map<string, { t: number; refused: number }[]>()

  const refusedLastMinute = (accountId: string, refused: number, now: number): number => {
    let s = samples.get(accountId)
    if (s === undefined) samples.set(accountId, (s = []))
    // A new day restarts the count from zero.
    if (s.length > 0 && refused < s[s.length - 1]!.refused) s.length = 0
    s.push({ t: now, refused })
    while (s.length > 1 && s[1]!.t <= now - WINDOW_MS) s.shift()
    return refused - s[0]!.refused
  }

  let list: { at: number; watched: Watched } | undefined
  const watchedAccounts = async (now: number): Promise<Watched> => {
    if (list && now - list.at < (deps.listMaxAgeMs ?? 0)) return list.watched
    const watched = (await deps.settings.list()).filter(
      (a) => a.creditThresholds.length > 0 || a.refusalsPerMinute !== null,
    )
    list = { at: now, watched }
    // Accounts whose alerts were removed: their refusal samples go.
    const ids = new Set(watched.map((a) => a.accountId))
    for (const id of samples.keys()) if (!ids.has(id)) samples.delete(id)
    return watched
  }

  return {
    async run() {
      const now = clock.now()
      const day = utcDay(now)
      if (day !== firedDay) {
        fired.clear()
        firedDay = day
      }
      const watched = await watchedAccounts(now)
      const claimed: AlertPayload[] = []
      for (let i = 0; i < watched.length; i += CHUNK) {
        if (i > 0) await yieldToCalls()
        await sweepChunk(watched.slice(i, i + CHUNK), now, day, claimed)
      }
      if (claimed.length > 0) deps.onClaimed()
      return claimed
    },
  }

  async function sweepChunk(watched: Watched, now: number, day: number, claimed: AlertPayload[]): Promise<void> {
    const usage = await alertUsageToday(
      deps.db,
      watched.map((a) => a.accountId),
      now,
    )
    for (const a of watched) {
      const u = usage.get(a.accountId) ?? { credits: 0, refused: 0 }
      const used = Math.max(u.credits, deps.limits?.usedToday(a.accountId, now) ?? 0)
      const balance = deps.plans[a.plan]?.creditsPerDay ?? 0
      const refused = refusedLastMinute(a.accountId, u.refused, now)
      const due: [AlertKind, number][] = []
      for (const pct of a.creditThresholds) if (balance > 0 && used * 100 >= pct * balance) due.push(['credits', pct])
      if (a.refusalsPerMinute !== null && refused >= a.refusalsPerMinute) due.push(['refusals', a.refusalsPerMinute])
      for (const [kind, threshold] of due) {
        const once = `${a.accountId}|${kind}|${threshold}`
        if (fired.has(once)) continue
        const payload: AlertPayload = {
          id: randomUUID(),
          type: kind === 'credits' ? 'credits.threshold' : 'refusals.threshold',
          accountId: a.accountId,
          threshold,
          used,
          balance,
          remaining: Math.max(0, balance - used),
          refusedLastMinute: refused,
          day: new Date(day * MS_PER_DAY).toISOString().slice(0, 10),
          time: new Date(now).toISOString(),
        }
        const won = await deps.log.claim({
          id: payload.id,
          accountId: a.accountId,
          kind,
          threshold,
          day,
          payload: JSON.stringify(payload),
          createdAt: now,
          status: a.webhookUrl ? 'pending' : 'none',
          nextAttemptAt: a.webhookUrl ? now : null,
        })
        fired.add(once)
        if (won) claimed.push(payload)
      }
    }
  }
}
