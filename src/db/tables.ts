import type { ColumnType } from 'kysely'
import type { AlertTables } from './alert-tables.ts'
import type { RequestLogColumns } from './request-log-columns.ts'
import type { WalletTables } from './wallet-tables.ts'

/**
 * Row types of every table, as kysely sees them (the wallet's in ./wallet-tables.ts, the usage alerts' in
 * ./alert-tables.ts). Add a table with its migration.
 */
export interface AccountsTable {
  id: string
  email: string
  plan: string
  created_at: number
  /** 'user' | 'operator' (migration 0310_account_roles). */
  role: ColumnType<string, string | undefined, string>
  /** Set when the account was deleted (its row stays for its usage and revoked keys). */
  deleted_at: ColumnType<number | null, number | null | undefined, number | null>
  /** Set while an operator has the account disabled (migration 0510_account_disabled). */
  disabled_at: ColumnType<number | null, number | null | undefined, number | null>
  /** Set when the sign-up's email was confirmed; null: not yet (migration 0800_account_mail_2fa). */
  email_confirmed_at: ColumnType<number | null, number | null | undefined, number | null>
  /** 'person' (logs in) or 'team' (a shared team's billing row; migration 0810_teams). */
  kind: ColumnType<string, string | undefined, string>
}

export interface ApiKeysTable {
  id: string
  key: string
  account_id: string
  name: string
  created_at: number
  revoked_at: number | null
  credits_per_second: number | null
  credits_per_day: number | null
}

export interface ApiKeyNetworksTable {
  key_id: string
  network: string
}

export interface UsageHourlyTable {
  hour: number
  account_id: string
  key_id: string
  network: string
  method: string
  calls: number
  credits: number
  errors: number
}

export interface UsageErrorsTable {
  hour: number
  account_id: string
  key_id: string
  network: string
  error: string
  count: number
}

export interface SettingsVersionTable {
  id: number
  version: number
}

export interface Database extends WalletTables, AlertTables {
  accounts: AccountsTable
  api_keys: ApiKeysTable
  api_key_networks: ApiKeyNetworksTable
  usage_hourly: UsageHourlyTable
  usage_errors: UsageErrorsTable
  settings_version: SettingsVersionTable
}

// ---- dashboard and key security (migration 0200_key_security); merged into `Database` above ----

export interface ApiKeySecurityTable {
  key_id: string
  secret_hash: string | null
  require_secret: number
  secret_overrides_allowlists: number
  require_jwt: number
  /** JSON of `Allowlists` (src/keys/security/types.ts). */
  allowlists: string
  /** JSON of `JwtPublicKey[]`. */
  jwt_keys: string
  updated_at: number
}

export interface AccountCredentialsTable {
  account_id: string
  password_hash: string
  updated_at: number
}

export interface DashboardSessionsTable {
  id_hash: string
  account_id: string
  csrf_token: string
  created_at: number
  expires_at: number
  /** Where the log-in came from, for the account page's list (migration 0800_account_mail_2fa). */
  user_agent: ColumnType<string | null, string | null | undefined, string | null>
  ip: ColumnType<string | null, string | null | undefined, string | null>
  last_seen_at: ColumnType<number | null, number | null | undefined, number | null>
}

export interface Database {
  api_key_security: ApiKeySecurityTable
  account_credentials: AccountCredentialsTable
  dashboard_sessions: DashboardSessionsTable
}

/**
 * Upstream usage per UTC hour, network, upstream and method (migration 0400_upstream_usage;
 * src/usage/upstream-usage.ts).
 */
export interface UsageUpstreamHourlyTable {
  hour: number
  network: string
  upstream: string
  method: string
  calls: number
  attempts: number
  cache_hits: number
  dedup_hits: number
  credits: number
  failures: number
}

export interface Database {
  usage_upstream_hourly: UsageUpstreamHourlyTable
}

/** The admin audit (migration 0500_admin_audit; src/audit/repository.ts). */
export interface AdminAuditTable {
  id: string
  /** Unix milliseconds. */
  at: number
  actor: string
  action: string
  target: string | null
  summary: string
  status: number
}

export interface Database {
  admin_audit: AdminAuditTable
}

/**
 * The request explorer: one row per call, bounded by config `requests` (migration 0600). Its columns are the
 * explorer's column list (src/db/request-log-columns.ts), and `id`.
 */
export interface RequestLogTable extends RequestLogColumns {
  id: ColumnType<number, number | undefined, never>
}

export interface Database {
  request_log: RequestLogTable
}

// ---- 0800_account_mail_2fa ---------------------------------------------------------------------------------------

export interface LinkTokensTable {
  token_hash: string
  /** 'confirm' | 'reset' | 'invite' | 'login-2fa' */
  purpose: string
  account_id: string | null
  email: string | null
  data: string | null
  created_at: number
  expires_at: number
  used_at: ColumnType<number | null, number | null | undefined, number | null>
}

export interface AccountTotpTable {
  account_id: string
  secret: string
  enabled_at: number | null
  last_step: number | null
  updated_at: number
}

export interface AccountRecoveryCodesTable {
  account_id: string
  code_hash: string
  used_at: ColumnType<number | null, number | null | undefined, number | null>
}

// ---- teams (migration 0810_teams; src/accounts/teams) ----

export interface TeamsTable {
  /** The id of the team's `accounts` row (its plan); a personal team has its person's account id. */
  id: string
  name: string
  created_at: number
  deleted_at: ColumnType<number | null, number | null | undefined, number | null>
}

export interface TeamMembersTable {
  team_id: string
  account_id: string
  role: string
  created_at: number
}

export interface TeamInvitationsTable {
  id: string
  team_id: string
  email: string
  role: string
  invited_by: string
  created_at: number
  expires_at: number
  accepted_at: ColumnType<number | null, number | null | undefined, number | null>
  accepted_by: ColumnType<string | null, string | null | undefined, string | null>
  revoked_at: ColumnType<number | null, number | null | undefined, number | null>
}

export interface Database {
  link_tokens: LinkTokensTable
  account_totp: AccountTotpTable
  account_recovery_codes: AccountRecoveryCodesTable
  teams: TeamsTable
  team_members: TeamMembersTable
  team_invitations: TeamInvitationsTable
}
