/**
 * What the wallet reads from the chain before asking (through the gateway, like the EVM view's eth_call): the
 * address-lookup-table entries the transaction uses, the token accounts and mints its instructions name (for
 * decimals), the balances of its writable accounts, whether its blockhash is still valid, and a simulation
 * (https://solana.com/docs/rpc/http/simulatetransaction) giving the same accounts afterwards, an error and logs.
 * Nothing here throws on a chain answer: a read that fails or answers nonsense is noted in `unavailable`.
 */
import { getBase58Decoder } from '@solana/kit'
import {
  isTokenAccountState,
  MAX_LOG_CHARS,
  MAX_LOGS,
  type SolanaSimulation,
  type SolanaTransactionContext,
  type TokenAccountState,
} from './context.ts'
import { type DecodedSolanaTransaction, decodeSolanaTransactionBase64, resolveLookups } from './decode.ts'
import { describeSimulationError } from './simulation-error.ts'
import { SPL_TOKEN_PROGRAMS } from './token.ts'

export interface SolanaChainReads {
  /** A JSON-RPC call through the gateway: resolves with the `result`, rejects on an error answer. */
  rpc(method: string, params: unknown[]): Promise<unknown>
}

/** Each read gets this long; the approval is shown without what did not come back. */
export const READ_TIMEOUT_MS = 5000
/** getMultipleAccounts takes at most 100 addresses; the simulation's `accounts` at most the transaction's. */
const MAX_READ_ACCOUNTS = 100
const MAX_SIMULATED_ACCOUNTS = 64
const LOOKUP_TABLE_HEADER_BYTES = 56

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

async function read(reads: SolanaChainReads, method: string, params: unknown[]): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${READ_TIMEOUT_MS / 1000} s`)), READ_TIMEOUT_MS)
  })
  try {
    return await Promise.race([reads.rpc(method, params), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** `{ context, value }` answers unwrapped. */
const unwrap = (answer: unknown): unknown => (isObject(answer) && 'value' in answer ? answer.value : answer)

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 200)

/** A lookup table's addresses: 32-byte keys after its 56-byte header (solana-program address_lookup_table state). */
function lookupAddresses(account: unknown): string[] | undefined {
  if (!isObject(account) || !Array.isArray(account.data) || typeof account.data[0] !== 'string') return undefined
  const bytes = Buffer.from(account.data[0], 'base64')
  if (bytes.length < LOOKUP_TABLE_HEADER_BYTES || bytes.readUInt32LE(0) !== 1) return undefined
  const out: string[] = []
  for (let at = LOOKUP_TABLE_HEADER_BYTES; at + 32 <= bytes.length; at += 32)
    out.push(base58(bytes.subarray(at, at + 32)))
  return out
}

const base58 = (b: Uint8Array) => getBase58Decoder().decode(b)

/** A jsonParsed account: its lamports, and the token account or mint it holds. */
function parsedAccount(account: unknown): {
  lamports?: string
  token?: TokenAccountState
  mintDecimals?: number
} {
  if (!isObject(account)) return {}
  const lamports =
    typeof account.lamports === 'number' && Number.isSafeInteger(account.lamports)
      ? String(account.lamports)
      : undefined
  const data = isObject(account.data) ? account.data : undefined
  const parsed = data && isObject(data.parsed) ? data.parsed : undefined
  const info = parsed && isObject(parsed.info) ? parsed.info : undefined
  if (!info || (data?.program !== 'spl-token' && data?.program !== 'spl-token-2022'))
    return lamports ? { lamports } : {}
  if (parsed!.type === 'mint' && Number.isInteger(info.decimals))
    return { ...(lamports ? { lamports } : {}), mintDecimals: info.decimals as number }
  const amount = isObject(info.tokenAmount) ? info.tokenAmount : undefined
  const token = {
    mint: info.mint,
    owner: info.owner,
    amount: amount?.amount,
    ...(Number.isInteger(amount?.decimals) ? { decimals: amount!.decimals } : {}),
  }
  return {
    ...(lamports ? { lamports } : {}),
    ...(parsed!.type === 'account' && isTokenAccountState(token) ? { token } : {}),
  }
}

/** Addresses the token instructions name (source, destination, mint…): read for mints and decimals. */
function tokenAddresses(tx: DecodedSolanaTransaction, accounts: { address?: string }[]): string[] {
  const out = new Set<string>()
  for (const ix of tx.instructions)
    if (SPL_TOKEN_PROGRAMS.includes(ix.programAddress))
      for (const i of ix.accountIndexes.slice(0, 4)) {
        const a = accounts[i]?.address
        if (a) out.add(a)
      }
  return [...out]
}

async function resolveTables(tx: DecodedSolanaTransaction, reads: SolanaChainReads, ctx: SolanaTransactionContext) {
  if (tx.lookups.length === 0) return
  const tables = [...new Set(tx.lookups.map((l) => l.table))]
  try {
    const answer = unwrap(
      await read(reads, 'getMultipleAccounts', [tables, { encoding: 'base64', commitment: 'confirmed' }]),
    )
    const list = Array.isArray(answer) ? answer : []
    ctx.lookupTables = {}
    tables.forEach((table, i) => {
      const addresses = lookupAddresses(list[i])
      if (!addresses) return
      const used: Record<string, string> = {}
      for (const l of tx.lookups.filter((x) => x.table === table))
        for (const index of [...l.writableIndexes, ...l.readonlyIndexes])
          if (addresses[index] !== undefined) used[String(index)] = addresses[index]!
      ctx.lookupTables![table] = used
    })
  } catch (e) {
    ctx.unavailable!.push(`The address lookup tables could not be read (${reason(e)}).`)
  }
}

function simulationOf(answer: unknown, addresses: string[], replaced: boolean): SolanaSimulation {
  const v = isObject(unwrap(answer)) ? (unwrap(answer) as Record<string, unknown>) : {}
  const logs = Array.isArray(v.logs) ? v.logs.filter((l): l is string => typeof l === 'string') : []
  const sim: SolanaSimulation = {
    ok: v.err === null || v.err === undefined,
    logs: logs.slice(-MAX_LOGS).map((l) => (l.length > MAX_LOG_CHARS ? `${l.slice(0, MAX_LOG_CHARS)}…` : l)),
    ...(logs.length > MAX_LOGS ? { logsLeftOut: logs.length - MAX_LOGS } : {}),
    ...(typeof v.unitsConsumed === 'number' ? { unitsConsumed: v.unitsConsumed } : {}),
    ...(replaced ? { replacedBlockhash: true } : {}),
  }
  if (!sim.ok) sim.error = describeSimulationError(v.err)
  const after = v.accounts
  if (sim.ok && Array.isArray(after)) {
    sim.balancesAfter = {}
    sim.tokenAccountsAfter = {}
    addresses.forEach((a, i) => {
      const p = parsedAccount(after[i])
      // An account the transaction closes comes back null: it holds nothing afterwards.
      sim.balancesAfter![a] = p.lamports ?? '0'
      if (p.token) sim.tokenAccountsAfter![a] = p.token
    })
  }
  return sim
}

export async function prepareDecodedTransactionContext(
  tx: DecodedSolanaTransaction,
  txBase64: string,
  reads: SolanaChainReads,
): Promise<SolanaTransactionContext> {
  const ctx: SolanaTransactionContext = { unavailable: [] }
  await resolveTables(tx, reads, ctx)
  const accounts = resolveLookups(tx, ctx.lookupTables)
  const writable = accounts
    .filter((a) => a.writable && a.address !== undefined)
    .map((a) => a.address!)
    .slice(0, MAX_SIMULATED_ACCOUNTS)
  const toRead = [...new Set([...writable, ...tokenAddresses(tx, accounts)])].slice(0, MAX_READ_ACCOUNTS)
  const nonce = isAdvanceNonce(tx)
  const [before, valid, simulated] = await Promise.allSettled([
    read(reads, 'getMultipleAccounts', [toRead, { encoding: 'jsonParsed', commitment: 'confirmed' }]),
    nonce
      ? Promise.resolve(undefined)
      : read(reads, 'isBlockhashValid', [tx.recentBlockhash, { commitment: 'confirmed' }]),
    read(reads, 'simulateTransaction', [
      txBase64,
      {
        encoding: 'base64',
        sigVerify: false,
        // A durable-nonce transaction must keep its nonce; any other is simulated against the latest blockhash, so a
        // blockhash about to expire still shows what the transaction does (its validity is checked apart).
        replaceRecentBlockhash: !nonce,
        commitment: 'confirmed',
        accounts: { encoding: 'jsonParsed', addresses: writable },
      },
    ]),
  ])
  if (before.status === 'fulfilled' && Array.isArray(unwrap(before.value))) {
    const list = unwrap(before.value) as unknown[]
    ctx.balances = {}
    ctx.tokenAccounts = {}
    ctx.mints = {}
    toRead.forEach((a, i) => {
      const p = parsedAccount(list[i])
      if (writable.includes(a)) ctx.balances![a] = p.lamports ?? '0'
      if (p.token) ctx.tokenAccounts![a] = p.token
      if (p.mintDecimals !== undefined) ctx.mints![a] = { decimals: p.mintDecimals }
    })
    for (const t of Object.values(ctx.tokenAccounts))
      if (t.decimals !== undefined && !ctx.mints[t.mint]) ctx.mints[t.mint] = { decimals: t.decimals }
  } else
    ctx.unavailable!.push(
      `The accounts could not be read (${before.status === 'rejected' ? reason(before.reason) : 'no answer'}).`,
    )
  if (valid.status === 'fulfilled' && typeof unwrap(valid.value) === 'boolean')
    ctx.blockhashValid = unwrap(valid.value) as boolean
  if (simulated.status === 'fulfilled') ctx.simulation = simulationOf(simulated.value, writable, !nonce)
  else ctx.unavailable!.push(`The transaction could not be simulated (${reason(simulated.reason)}).`)
  return ctx
}

/** The first instruction is System AdvanceNonceAccount (discriminator 4): the transaction carries a durable nonce. */
function isAdvanceNonce(tx: DecodedSolanaTransaction): boolean {
  const first = tx.instructions[0]
  return (
    first?.programAddress === '11111111111111111111111111111111' &&
    first.data.length === 4 &&
    first.data[0] === 4 &&
    first.data[1] === 0 &&
    first.data[2] === 0 &&
    first.data[3] === 0
  )
}

/** Reads for the approval view; throws SolanaDecodeError only when the transaction itself is malformed. */
export async function prepareSolanaTransactionContext(
  txBase64: string,
  reads: SolanaChainReads,
): Promise<SolanaTransactionContext> {
  return prepareDecodedTransactionContext(decodeSolanaTransactionBase64(txBase64), txBase64, reads)
}
