/**
 * Every migration, by name. Names sort in the order they run; never edit a landed migration, add a new one.
 * The same migrations run on SQLite and PostgreSQL (column types through ../dialect.ts; on SQLite the SQL is exactly
 * what landed first, so existing databases are untouched).
 * 0001-0099: gateway core, 0100-0199: wallet, 0200-0299: dashboard and key security, 0300-0399: accounts,
 * 0400-0499: upstreams, 0500-0599: admin API, 0600-0699: the request explorer, 0700-0799: usage alerts,
 * 0800-0899: account mail, two-factor log-in and teams.
 */
import type { Migration } from 'kysely'
import * as m0001 from './0001_core.ts'
import * as m0100 from './0100_wallet.ts'
import * as m0200 from './0200_key_security.ts'
import * as m0300 from './0300_wallet_activity.ts'
import * as m0310 from './0310_account_roles.ts'
import * as m0400 from './0400_upstream_usage.ts'
import * as m0500 from './0500_admin_audit.ts'
import * as m0510 from './0510_account_disabled.ts'
import * as m0600 from './0600_request_log.ts'
import * as m0610 from './0610_request_log_no_time_index.ts'
import * as m0700 from './0700_usage_alerts.ts'
import * as m0800 from './0800_account_mail_2fa.ts'
import * as m0810 from './0810_teams.ts'

export const migrations: Record<string, Migration> = {
  '0001_core': m0001,
  '0100_wallet': m0100,
  '0200_key_security': m0200,
  '0300_wallet_activity': m0300,
  '0310_account_roles': m0310,
  '0400_upstream_usage': m0400,
  '0500_admin_audit': m0500,
  '0510_account_disabled': m0510,
  '0600_request_log': m0600,
  '0610_request_log_no_time_index': m0610,
  '0700_usage_alerts': m0700,
  '0800_account_mail_2fa': m0800,
  '0810_teams': m0810,
}
