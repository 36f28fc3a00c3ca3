import type { ColumnType } from 'kysely'

/** Row types of the wallet's tables (src/wallet), part of `Database` (./tables.ts). */
export interface WalletAccountsTable {
  address: string
  hd_index: number
  label: string
  created_at: number
  removed_at: number | null
}

export interface WalletSessionsTable {
  origin: string
  session: string
  created_at: number
  updated_at: number
  expires_at: number | null
}

export interface WalletApprovalsTable {
  id: string
  origin: string
  kind: string
  request: string
  status: string
  decision: string | null
  decided_by: string | null
  created_at: number
  expires_at: number
  decided_at: number | null
}

export interface WalletActivityTable {
  id: ColumnType<number, number | undefined, never>
  at: number
  origin: string
  kind: string
  outcome: string
  chain_id: number | null
  address: string | null
  summary: string
  tx_hash: string | null
  receipt_status: string | null
}

export interface WalletChangesTable {
  id: number
  version: number
}

export interface WalletTables {
  wallet_accounts: WalletAccountsTable
  wallet_sessions: WalletSessionsTable
  wallet_approvals: WalletApprovalsTable
  wallet_changes: WalletChangesTable
  wallet_activity: WalletActivityTable
}
