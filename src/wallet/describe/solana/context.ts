/**
 * What `prepareSolanaTransactionContext` learns from the chain before the user decides, stored (as JSON) with the
 * pending request and read back by `describeSolanaTransaction`. Read back as untrusted: every field is checked for
 * shape before use, so a damaged or hand-edited record shows less, never crashes the view.
 */

/** An SPL token account as read (amount in base units, a decimal string). */
export interface TokenAccountState {
  mint: string
  owner: string
  decimals?: number
  amount: string
}

export interface SolanaSimulation {
  ok: boolean
  /** Why it failed, readable (`instruction #2 failed: insufficient funds`). */
  error?: string
  /** The program logs, at most MAX_LOGS lines of at most MAX_LOG_CHARS characters. */
  logs: string[]
  /** How many log lines were left out. */
  logsLeftOut?: number
  unitsConsumed?: number
  /** The blockhash was replaced by the latest one for the simulation (the dapp's may be about to expire). */
  replacedBlockhash?: boolean
  /** Lamports after, by address (decimal strings), for the accounts whose before is in `balances`. */
  balancesAfter?: Record<string, string>
  tokenAccountsAfter?: Record<string, TokenAccountState>
}

export interface SolanaTransactionContext {
  /** The lookup-table entries the transaction uses: table → index → address. */
  lookupTables?: Record<string, Record<string, string>>
  /** SPL token accounts the instructions name, as before the transaction. */
  tokenAccounts?: Record<string, TokenAccountState>
  /** Mint decimals, by mint. */
  mints?: Record<string, { decimals: number }>
  /** Lamports before, by address (decimal strings), of the writable accounts. */
  balances?: Record<string, string>
  /** False when the recent blockhash has expired (sending would fail). */
  blockhashValid?: boolean
  simulation?: SolanaSimulation
  /** What could not be read (each a short sentence), shown as warnings. */
  unavailable?: string[]
}

export const MAX_LOGS = 40
export const MAX_LOG_CHARS = 300

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A record of strings to T (only entries that pass `check`), from untrusted JSON. */
export function recordOf<T>(v: unknown, check: (x: unknown) => x is T): Record<string, T> {
  const out: Record<string, T> = {}
  if (!isObject(v)) return out
  for (const [k, x] of Object.entries(v)) if (check(x)) out[k] = x
  return out
}

export const isDecimalString = (v: unknown): v is string => typeof v === 'string' && /^\d{1,40}$/.test(v)

export const isTokenAccountState = (v: unknown): v is TokenAccountState =>
  isObject(v) &&
  typeof v.mint === 'string' &&
  typeof v.owner === 'string' &&
  isDecimalString(v.amount) &&
  (v.decimals === undefined || (typeof v.decimals === 'number' && Number.isInteger(v.decimals)))

/** The context with every field checked; what fails its shape is dropped. */
export function readContext(ctx: unknown): SolanaTransactionContext {
  if (!isObject(ctx)) return {}
  const tables: Record<string, Record<string, string>> = {}
  if (isObject(ctx.lookupTables))
    for (const [t, entries] of Object.entries(ctx.lookupTables))
      tables[t] = recordOf(entries, (x): x is string => typeof x === 'string')
  const sim = isObject(ctx.simulation) ? ctx.simulation : undefined
  return {
    lookupTables: tables,
    tokenAccounts: recordOf(ctx.tokenAccounts, isTokenAccountState),
    mints: recordOf(ctx.mints, (x): x is { decimals: number } => isObject(x) && Number.isInteger(x.decimals)),
    balances: recordOf(ctx.balances, isDecimalString),
    ...(typeof ctx.blockhashValid === 'boolean' ? { blockhashValid: ctx.blockhashValid } : {}),
    ...(sim
      ? {
          simulation: {
            ok: sim.ok === true,
            ...(typeof sim.error === 'string' ? { error: sim.error } : {}),
            logs: Array.isArray(sim.logs) ? sim.logs.filter((l) => typeof l === 'string').slice(0, MAX_LOGS) : [],
            ...(typeof sim.logsLeftOut === 'number' ? { logsLeftOut: sim.logsLeftOut } : {}),
            ...(typeof sim.unitsConsumed === 'number' ? { unitsConsumed: sim.unitsConsumed } : {}),
            ...(sim.replacedBlockhash === true ? { replacedBlockhash: true } : {}),
            balancesAfter: recordOf(sim.balancesAfter, isDecimalString),
            tokenAccountsAfter: recordOf(sim.tokenAccountsAfter, isTokenAccountState),
          },
        }
      : {}),
    unavailable: Array.isArray(ctx.unavailable) ? ctx.unavailable.filter((u) => typeof u === 'string') : [],
  }
}
