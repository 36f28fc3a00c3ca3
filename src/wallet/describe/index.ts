/**
 * Pending requests as the console shows them. Pure: the request as stored (src/wallet/methods/*) plus the wallet's
 * chains and accounts in, a view out; the page (src/wallet/console) only renders it, through textContent.
 */
import { eip155ChainIdOf, isPlainObject } from '../scopes.ts'
import { describeMessage, type MessageView } from './message.ts'
import {
  describeTransaction,
  type ShownTransaction,
  type TransactionContext,
  type TransactionView,
} from './transaction.ts'
import { describeTypedData, type TypedDataView } from './typed-data.ts'
import { SOLANA_TITLES, describeSolanaApproval } from './solana-approval.ts'
import { accountLabel, networkOf, type DescribeEnv, type Row } from './types.ts'

export type { DescribeEnv, Row } from './types.ts'

export interface RequestView {
  title: string
  network?: string
  chainId?: number
  rows: Row[]
  warnings: string[]
  transaction?: TransactionView
  message?: MessageView
  typedData?: TypedDataView
}

const TITLES: Record<string, string> = {
  session: 'Connect',
  personal_sign: 'Sign a message',
  eth_signTypedData_v4: 'Sign typed data',
  eth_sendTransaction: 'Send a transaction',
}

export function describeApproval(kind: string, request: unknown, env: DescribeEnv): RequestView {
  const r = isPlainObject(request) ? request : {}
  const title = TITLES[kind] ?? kind
  if (kind === 'session') return { title, rows: [], warnings: [] }
  if (Object.hasOwn(SOLANA_TITLES, kind))
    return describeSolanaApproval(kind, request, { solanaChains: env.solanaChains ?? [], accounts: env.accounts })
  const chainId = typeof r.scope === 'string' ? eip155ChainIdOf(r.scope) : undefined
  const base = { title, network: networkOf(chainId, env), ...(chainId !== undefined ? { chainId } : {}) }
  if (kind === 'eth_sendTransaction') {
    const transaction = describeTransaction(
      (r.transaction ?? {}) as ShownTransaction,
      r.context as TransactionContext | undefined,
      chainId,
      env,
    )
    return { ...base, rows: transaction.rows, warnings: transaction.warnings, transaction }
  }
  const signer: Row = { label: 'Account', value: String(r.address ?? ''), detail: accountLabel(r.address, env) }
  const network: Row = { label: 'Network', value: base.network }
  if (kind === 'personal_sign') {
    const raw = typeof r.messageHex === 'string' ? r.messageHex : typeof r.message === 'string' ? r.message : ''
    const message = describeMessage(raw)
    const warnings =
      message.text === undefined
        ? ['The message is binary data, not text: sign it only if you know what it is (it may be a transaction hash).']
        : []
    return { ...base, rows: [network, signer], warnings, message }
  }
  if (kind === 'eth_signTypedData_v4') {
    const typedData = describeTypedData(r.typedData, chainId)
    return {
      ...base,
      rows: [network, signer, { label: 'Type', value: typedData.primaryType }],
      warnings: typedData.warnings,
      typedData,
    }
  }
  return { ...base, rows: [], warnings: [] }
}
