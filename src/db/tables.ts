/** Row types of every table, as kysely sees them. Add a table here with its migration. */
export interface AccountsTable {
  id: string
  email: string
  plan: string
  created_at: number
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

export interface Database {
  accounts: AccountsTable
  api_keys: ApiKeysTable
  api_key_networks: ApiKeyNetworksTable
  usage_hourly: UsageHourlyTable
  usage_errors: UsageErrorsTable
  settings_version: SettingsVersionTable
}
