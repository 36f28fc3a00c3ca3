/**
 * What the devnet works out around LiteSVM's execution of a transaction: the account keys it loads (address lookup
 * tables resolved), the durable-nonce check, the fee, the token balances before and after, and litesvm's metadata
 * as the record's fields.
 */
import type { EncodedAccount, Transaction } from '@solana/kit'
import type { LiteSVM, TransactionMetadata } from 'litesvm'
import { encodeBase58, encodeBase64 } from './codec.ts'
import { readTokenAccount, uiTokenAmount } from './spl-token.ts'
import type { TransactionRecord, TokenBalance } from './transaction-history.ts'
import { isStaticWritable, type ParsedTransaction } from './transaction.ts'
import type { TransactionErrorJson } from './transaction-errors.ts'
import type { AccountState } from './account-state.ts'

export const LAMPORTS_PER_SIGNATURE = 5000
const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111'
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111'

type GetAccount = (address: string) => AccountState | undefined

export interface ExecutionResult {
  /** set when the transaction landed */
  record?: TransactionRecord
  err: TransactionErrorJson | null
  logs: string[]
  unitsConsumed: number
  returnData: TransactionRecord['returnData']
  innerInstructions: TransactionRecord['innerInstructions']
  accountKeys: string[]
  postAccounts?: Map<string, AccountState | undefined>
}

export interface ResolvedKeys {
  keys: string[]
  writable: string[]
  loaded: TransactionRecord['loadedAddresses']
}

/** An account as litesvm answers it (getAccount, getProgramAccounts, a simulation's post accounts). */
export function accountState(account: Pick<EncodedAccount, 'lamports' | 'programAddress' | 'executable' | 'data'>) {
  return {
    lamports: account.lamports,
    owner: account.programAddress,
    executable: account.executable,
    data: Uint8Array.from(account.data),
  } satisfies AccountState
}

/** An empty account of the System program holding `lamports` (the faucet, the funded accounts). */
export function systemAccount(lamports: bigint): AccountState {
  return { lamports, owner: SYSTEM_PROGRAM, executable: false, data: new Uint8Array() }
}

export function maybeAccountState(account: ReturnType<LiteSVM['getAccount']>): AccountState | undefined {
  return account.exists ? accountState(account) : undefined
}

/**
 * Static keys, then the keys loaded from address lookup tables (writable, then readonly), as the runtime orders
 * them; an error when a table is missing or an index is out of range (AddressLookupTableNotFound and friends).
 */
export function resolveAccountKeys(tx: ParsedTransaction, getAccount: GetAccount): ResolvedKeys | { err: string } {
  const loaded = { writable: [] as string[], readonly: [] as string[] }
  for (const lookup of tx.addressTableLookups) {
    const table = getAccount(lookup.accountKey)
    if (!table) return { err: 'AddressLookupTableNotFound' }
    if (table.owner !== LOOKUP_TABLE_PROGRAM) return { err: 'InvalidAddressLookupTableOwner' }
    // Address lookup table layout: a 56-byte header, then 32-byte addresses.
    const count = Math.floor((table.data.length - 56) / 32)
    const at = (i: number) => encodeBase58(table.data.subarray(56 + i * 32, 88 + i * 32))
    for (const [indexes, into] of [
      [lookup.writableIndexes, loaded.writable],
      [lookup.readonlyIndexes, loaded.readonly],
    ] as const) {
      for (const i of indexes) {
        if (i >= count) return { err: 'InvalidAddressLookupTableIndex' }
        into.push(at(i))
      }
    }
  }
  const keys = [...tx.staticKeys, ...loaded.writable, ...loaded.readonly]
  const writable = [...tx.staticKeys.filter((_, i) => isStaticWritable(tx, i)), ...loaded.writable]
  return { keys, writable, loaded }
}

/** A durable-nonce transaction: its first instruction advances a nonce account that holds its blockhash. */
export function nonceMatches(tx: ParsedTransaction, keys: string[], getAccount: GetAccount): boolean {
  const first = tx.instructions[0]
  if (!first || keys[first.programIdIndex] !== SYSTEM_PROGRAM) return false
  const data = first.data
  if (data.length < 4 || data[0] !== 4 || data[1] !== 0 || data[2] !== 0 || data[3] !== 0) return false
  const nonce = getAccount(keys[first.accounts[0] ?? -1] ?? '')
  // Nonce account layout: version u32, state u32 (1 = initialized), authority, durable nonce, fee calculator.
  if (!nonce || nonce.owner !== SYSTEM_PROGRAM || nonce.data.length < 80 || nonce.data[4] !== 1) return false
  return encodeBase58(nonce.data.subarray(40, 72)) === tx.recentBlockhash
}

/** The fee: 5000 lamports a signature plus the priority fee of ComputeBudget's unit price × unit limit. */
export function transactionFee(tx: Pick<ParsedTransaction, 'header' | 'staticKeys' | 'instructions'>): number {
  let price = 0n
  let limit: bigint | undefined
  let others = 0
  for (const ix of tx.instructions) {
    const d = ix.data
    if (tx.staticKeys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM) {
      others++
      continue
    }
    const view = new DataView(d.buffer, d.byteOffset, d.byteLength)
    if (d[0] === 2 && d.length >= 5) limit = BigInt(view.getUint32(1, true))
    else if (d[0] === 3 && d.length >= 9) price = view.getBigUint64(1, true)
  }
  // Without SetComputeUnitLimit the runtime allows 200,000 units an instruction, at most 1.4 million.
  const units = limit ?? BigInt(Math.min(1_400_000, 200_000 * others))
  const priority = (price * units + 999_999n) / 1_000_000n
  return tx.header.numRequiredSignatures * LAMPORTS_PER_SIGNATURE + Number(priority)
}

/** The transaction as @solana/kit's Transaction, which litesvm takes. */
export function kitTransaction(tx: ParsedTransaction): Transaction {
  const signatures: Record<string, Uint8Array> = {}
  tx.staticKeys.slice(0, tx.signatureBytes.length).forEach((key, i) => {
    signatures[key] = tx.signatureBytes[i] as Uint8Array
  })
  return { messageBytes: tx.messageBytes, signatures } as unknown as Transaction
}

/** The SPL token accounts among `accounts` (in key order) as the record's pre/postTokenBalances. */
export function tokenBalances(
  accounts: Array<AccountState | undefined>,
  mintDecimals: (mint: string) => number | undefined,
): TokenBalance[] {
  const out: TokenBalance[] = []
  accounts.forEach((account, accountIndex) => {
    const token = readTokenAccount(account)
    if (!token || !account) return
    const decimals = token.isNative !== null ? 9 : mintDecimals(token.mint)
    if (decimals === undefined) return
    out.push({
      accountIndex,
      mint: token.mint,
      owner: token.owner,
      programId: account.owner,
      uiTokenAmount: uiTokenAmount(token.amount, decimals),
    })
  })
  return out
}

/** litesvm's metadata as the record's logs, compute units, return data and inner instructions. */
export function metaFields(meta: TransactionMetadata, keys: string[]) {
  const returned = meta.returnData()
  const returnBytes = returned.data()
  return {
    logs: meta.logs(),
    unitsConsumed: Number(meta.computeUnitsConsumed()),
    computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
    returnData:
      returnBytes.length > 0
        ? {
            programId: encodeBase58(returned.programId()),
            data: [encodeBase64(returnBytes), 'base64'] as [string, 'base64'],
          }
        : null,
    innerInstructions: meta
      .innerInstructions()
      .map((list, index) => ({
        index,
        instructions: list.map((inner) => {
          const ix = inner.instruction()
          return {
            programIdIndex: ix.programIdIndex(),
            accounts: [...ix.accounts()],
            data: encodeBase58(ix.data()),
            stackHeight: inner.stackHeight(),
          }
        }),
      }))
      .filter((entry) => entry.instructions.length > 0 && keys.length > 0),
  }
}
