/**
 * The alerts that fired and their delivery log (tables usage_alerts and alert_attempts). `claim` is how several
 * processes agree that an alert fires once per account, threshold and UTC day: the unique index admits one insert,
 * whoever comes first sends it. `lock` is how they agree on who sends one attempt: a conditional update that only
 * one process can win, with an expiry so a process that died mid-attempt does not hold it for ever.
 */
import type { ExpressionBuilder, Selectable } from 'kysely'
import type { Db } from '../db/database.ts'
import type { UsageAlertsTable } from '../db/alert-tables.ts'
import type { Database } from '../db/tables.ts'
import { isUniqueViolation } from '../db/dialect.ts'

export type AlertKind = 'credits' | 'refusals'
/** `none`: no webhook was configured when it fired (the dashboard still lists it). */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'none'

export interface AlertRecord {
  id: string
  accountId: string
  kind: AlertKind
  threshold: number
  day: number
  /** The JSON body, byte for byte what is signed and sent. */
  payload: string
  createdAt: number
  status: DeliveryStatus
  attempts: number
  nextAttemptAt: number | null
  lastStatus: number | null
  lastError: string | null
  deliveredAt: number | null
}

export interface AttemptRecord {
  attempt: number
  at: number
  status: number | null
  error: string | null
  durationMs: number
}

/** What one attempt ended with, and the alert's state after it. */
export interface AttemptOutcome {
  attempt: AttemptRecord
  status: DeliveryStatus
  nextAttemptAt: number | null
}

export interface AlertLog {
  /** Inserts the alert unless this (account, kind, threshold, day) fired already: true when this call inserted it. */
  claim(alert: Omit<AlertRecord, 'attempts' | 'lastStatus' | 'lastError' | 'deliveredAt'>): Promise<boolean>
  /** Pending alerts whose next attempt is due and that no process holds, oldest first. */
  due(nowMs: number, limit: number): Promise<AlertRecord[]>
  /**
   * Takes an attempt of `id` until `untilMs`: false when another process holds it, or it is no longer pending, or
   * no longer due (another process tried it after this one read it as due).
   */
  lock(id: string, nowMs: number, untilMs: number): Promise<boolean>
  /** Writes an attempt and the state after it, and lets the lock go. */
  record(id: string, outcome: AttemptOutcome): Promise<void>
  /** The most recent alerts, of one account or of all. */
  recent(accountId: string | undefined, limit: number): Promise<AlertRecord[]>
  attempts(alertId: string): Promise<AttemptRecord[]>
  /** Deletes alerts (and their attempts) that fired before `beforeMs` and are no longer pending; returns how many. */
  prune(beforeMs: number): Promise<number>
}

type Row = Omit<Selectable<UsageAlertsTable>, 'locked_until'>

const num = (v: number | null) => (v === null ? null : Number(v))
const toRecord = (r: Row): AlertRecord => ({
  id: r.id,
  accountId: r.account_id,
  kind: r.kind as AlertKind,
  threshold: Number(r.threshold),
  day: Number(r.day),
  payload: r.payload,
  createdAt: Number(r.created_at),
  status: r.status as DeliveryStatus,
  attempts: Number(r.attempts),
  nextAttemptAt: num(r.next_attempt_at),
  lastStatus: num(r.last_status),
  lastError: r.last_error,
  deliveredAt: num(r.delivered_at),
})

const COLUMNS = [
  'id',
  'account_id',
  'kind',
  'threshold',
  'day',
  'payload',
  'created_at',
  'status',
  'attempts',
  'next_attempt_at',
  'last_status',
  'last_error',
  'delivered_at',
] as const

export function createAlertLog(db: Db): AlertLog {
  return {
    async claim(a) {
      try {
        await db
          .insertInto('usage_alerts')
          .values({
            id: a.id,
            account_id: a.accountId,
            kind: a.kind,
            threshold: a.threshold,
            day: a.day,
            payload: a.payload,
            created_at: a.createdAt,
            status: a.status,
            next_attempt_at: a.nextAttemptAt,
          })
          .execute()
        return true
      } catch (err) {
        if (isUniqueViolation(err)) return false
        throw err
      }
    },
    async due(nowMs, limit) {
      const rows = await db
        .selectFrom('usage_alerts')
        .select(COLUMNS)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', nowMs)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', nowMs)]))
        .orderBy('next_attempt_at')
        .limit(limit)
        .execute()
      return rows.map(toRecord)
    },
    async lock(id, nowMs, untilMs) {
      const r = await db
        .updateTable('usage_alerts')
        .set({ locked_until: untilMs })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        // Due still: another process may have tried it since this one read it as due (then it waits for its backoff).
        .where('next_attempt_at', '<=', nowMs)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', nowMs)]))
        .executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },
    async record(id, o) {
      await db.transaction().execute(async (tx) => {
        await tx
          .insertInto('alert_attempts')
          .values({
            alert_id: id,
            attempt: o.attempt.attempt,
            at: o.attempt.at,
            status: o.attempt.status,
            error: o.attempt.error,
            duration_ms: o.attempt.durationMs,
          })
          .execute()
        await tx
          .updateTable('usage_alerts')
          .set({
            status: o.status,
            attempts: o.attempt.attempt,
            next_attempt_at: o.nextAttemptAt,
            locked_until: null,
            last_status: o.attempt.status,
            last_error: o.attempt.error,
            delivered_at: o.status === 'delivered' ? o.attempt.at + o.attempt.durationMs : null,
          })
          .where('id', '=', id)
          .execute()
      })
    },
    async recent(accountId, limit) {
      let q = db.selectFrom('usage_alerts').select(COLUMNS)
      if (accountId !== undefined) q = q.where('account_id', '=', accountId)
      const rows = await q.orderBy('created_at', 'desc').orderBy('id').limit(limit).execute()
      return rows.map(toRecord)
    },
    async attempts(alertId) {
      const rows = await db
        .selectFrom('alert_attempts')
        .select(['attempt', 'at', 'status', 'error', 'duration_ms'])
        .where('alert_id', '=', alertId)
        .orderBy('attempt')
        .execute()
      return rows.map((r) => ({
        attempt: Number(r.attempt),
        at: Number(r.at),
        status: num(r.status),
        error: r.error,
        durationMs: Number(r.duration_ms),
      }))
    },
    async prune(beforeMs) {
      return db.transaction().execute(async (tx) => {
        const old = (eb: ExpressionBuilder<Database, 'usage_alerts'>) =>
          eb.and([eb('created_at', '<', beforeMs), eb('status', '!=', 'pending')])
        await tx
          .deleteFrom('alert_attempts')
          .where('alert_id', 'in', (eb) => eb.selectFrom('usage_alerts').select('id').where(old))
          .execute()
        const r = await tx.deleteFrom('usage_alerts').where(old).executeTakeFirst()
        return Number(r.numDeletedRows)
      })
    },
  }
}
