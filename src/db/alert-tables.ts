import type { ColumnType } from 'kysely'

/** The usage alerts' row types (migration 0700_usage_alerts; src/alerts), part of `Database` (./tables.ts). */
export interface AlertSettingsTable {
  account_id: string
  /** Percentages of the daily balance, comma-separated ascending ("80,100"); '' for none. */
  credit_thresholds: string
  refusals_per_minute: number | null
  webhook_url: string | null
  /** The webhook signing secret (HMAC-SHA256 key); shown to the account once, never logged. */
  secret: string
  updated_at: number
}

export interface UsageAlertsTable {
  id: string
  account_id: string
  kind: string
  threshold: number
  day: number
  payload: string
  created_at: number
  status: string
  attempts: ColumnType<number, number | undefined, number>
  next_attempt_at: number | null
  locked_until: ColumnType<number | null, number | null | undefined, number | null>
  last_status: ColumnType<number | null, number | null | undefined, number | null>
  last_error: ColumnType<string | null, string | null | undefined, string | null>
  delivered_at: ColumnType<number | null, number | null | undefined, number | null>
}

export interface AlertAttemptsTable {
  alert_id: string
  attempt: number
  at: number
  status: number | null
  error: string | null
  duration_ms: number
}

export interface AlertTables {
  alert_settings: AlertSettingsTable
  usage_alerts: UsageAlertsTable
  alert_attempts: AlertAttemptsTable
}
