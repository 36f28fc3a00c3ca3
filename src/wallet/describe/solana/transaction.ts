/**
 * A Solana transaction to approve, as a person reads it: network, fee payer and signers, every instruction decoded
 * (SOL and token amounts with their decimals), the fee in SOL, and what the simulation showed (balance changes,
 * error, logs). Pure: the transaction and what `prepareSolanaTransactionContext` read in, a view out.
 */
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '@solana-program/compute-budget'
import type { Row } from '../types.ts'
import { readContext, type SolanaTransactionContext, type TokenAccountState } from './context.ts'
import {
  type DecodedSolanaTransaction,
  decodeSolanaTransactionBase64,
  resolveLookups,
  SolanaDecodeError,
} from './decode.ts'
import { LAMPORTS_PER_SIGNATURE, signedSol, signedToken, sol } from './format.ts'
import { describeInstruction } from './instructions.ts'
import type { InstructionEnv, InstructionView } from './instruction-types.ts'

export interface SolanaDescribeEnv {
  /** CAIP-2 id, `solana:<genesis hash prefix>`. */
  cluster: string
  network: string
  accounts: { address: string; index: number; label: string }[]
}

export interface SolanaTransactionView {
  rows: Row[]
  warnings: string[]
  feePayer?: string
  signers: string[]
  recentBlockhash?: string
  version?: 'legacy' | 0
  /** The instructions shown (at most MAX_INSTRUCTIONS_SHOWN). */
  instructions: InstructionView[]
  /** The simulation's program logs (bounded), for a details pane. */
  logs: string[]
  /** The fee the transaction pays: base plus priority, lamports. */
  feeLamports?: string
}

export const MAX_INSTRUCTIONS_SHOWN = 24
/** At most this many balance-change rows (SOL and token each). */
const MAX_CHANGES_SHOWN = 12
/** Compute units a transaction may use when it sets no limit: 200,000 per instruction, at most 1.4 million. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000
const MAX_COMPUTE_UNITS = 1_400_000

/** `your account #0 "main"` for the wallet's own addresses. */
export function ownLabel(address: string, env: SolanaDescribeEnv): string | undefined {
  const a = env.accounts.find((x) => x.address === address)
  return a ? `your account #${a.index}${a.label ? ` "${a.label}"` : ''}` : undefined
}

const own = (address: string, env: SolanaDescribeEnv) => {
  const detail = ownLabel(address, env)
  return detail ? { detail } : {}
}

function instructionEnv(env: SolanaDescribeEnv, ctx: SolanaTransactionContext): InstructionEnv {
  const who = (a: string) => {
    const own = ownLabel(a, env)
    return own ? `${a} (${own})` : a
  }
  return {
    who,
    isOwn: (a) => ownLabel(a, env) !== undefined,
    tokenAccount: (a) => ctx.tokenAccounts?.[a] ?? ctx.simulation?.tokenAccountsAfter?.[a],
    mintDecimals: (m) => ctx.mints?.[m]?.decimals,
  }
}

/** Base fee (5,000 lamports a signature) plus priority fee (limit × price, rounded up), as the runtime charges. */
function feeRow(tx: DecodedSolanaTransaction, shown: InstructionView[]): { row: Row; lamports: bigint } {
  let unitLimit: number | undefined
  let price = 0n
  for (const ix of shown) {
    if (ix.budget?.unitLimit !== undefined) unitLimit = ix.budget.unitLimit
    if (ix.budget?.microLamportsPerUnit !== undefined) price = ix.budget.microLamportsPerUnit
  }
  const others = tx.instructions.filter((ix) => ix.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS)
  const units = BigInt(unitLimit ?? Math.min(MAX_COMPUTE_UNITS, DEFAULT_UNITS_PER_INSTRUCTION * others.length))
  const base = BigInt(tx.header.numSignerAccounts) * LAMPORTS_PER_SIGNATURE
  const priority = (units * price + 999_999n) / 1_000_000n
  const detail =
    `base ${sol(base)} (${tx.header.numSignerAccounts} signature${tx.header.numSignerAccounts === 1 ? '' : 's'} × ` +
    `5,000 lamports)` +
    (price > 0n
      ? ` + priority ${sol(priority)} (${units} compute units${unitLimit === undefined ? ' by default' : ''} × ` +
        `${price} micro-lamports)`
      : '')
  return { row: { label: 'Network fee', value: sol(base + priority), detail }, lamports: base + priority }
}

const delta = (after: string, before: string | undefined) => BigInt(after) - BigInt(before ?? '0')

function balanceRows(ctx: SolanaTransactionContext, who: (a: string) => string): Row[] {
  const sim = ctx.simulation
  if (!sim?.ok) return []
  const rows: Row[] = []
  for (const [address, after] of Object.entries(sim.balancesAfter ?? {})) {
    const before = ctx.balances?.[address]
    if (before === undefined) continue
    const d = delta(after, before)
    if (d !== 0n) rows.push({ label: 'Balance change', value: signedSol(d), detail: who(address) })
  }
  const tokens: Row[] = []
  const changed = (a: string, after: TokenAccountState | undefined, before: TokenAccountState | undefined) => {
    const state = after ?? before!
    const d = delta(after?.amount ?? '0', before?.amount ?? '0')
    if (d === 0n) return
    const decimals = state.decimals ?? ctx.mints?.[state.mint]?.decimals
    tokens.push({
      label: 'Token balance change',
      value: `${signedToken(d, decimals)} of token ${state.mint}`,
      detail: `token account ${a} (owner: ${who(state.owner)})`,
    })
  }
  const after = sim.tokenAccountsAfter ?? {}
  for (const [a, state] of Object.entries(after)) changed(a, state, ctx.tokenAccounts?.[a])
  // A token account simulated and no longer a token account afterwards was closed: all its tokens are gone.
  for (const [a, state] of Object.entries(ctx.tokenAccounts ?? {}))
    if (sim.balancesAfter?.[a] !== undefined && !after[a]) changed(a, undefined, state)
  // Own rows first: they are what the user decides on.
  const own = (r: Row) => (r.detail?.includes('(your account #') ? 0 : 1)
  return [
    ...rows.sort((x, y) => own(x) - own(y)).slice(0, MAX_CHANGES_SHOWN),
    ...tokens.sort((x, y) => own(x) - own(y)).slice(0, MAX_CHANGES_SHOWN),
  ]
}

function simulationRows(ctx: SolanaTransactionContext, warnings: string[]): Row[] {
  const sim = ctx.simulation
  if (!sim) return [{ label: 'Simulation', value: 'not run' }]
  if (sim.ok)
    return [
      {
        label: 'Simulation',
        value: 'succeeds',
        ...(sim.unitsConsumed !== undefined ? { detail: `${sim.unitsConsumed} compute units used` } : {}),
      },
    ]
  const reason = sim.error ?? 'unknown error'
  const last = sim.logs.at(-1)
  warnings.push(
    `The simulation failed: ${reason}. Sending it would most likely fail and still cost the fee.` +
      (last ? ` Last log line: ${last}` : ''),
  )
  return [{ label: 'Simulation', value: `fails: ${reason}` }]
}

export function describeDecodedTransaction(
  tx: DecodedSolanaTransaction,
  context: SolanaTransactionContext | undefined,
  env: SolanaDescribeEnv,
): SolanaTransactionView {
  const ctx = readContext(context)
  const ienv = instructionEnv(env, ctx)
  const accounts = resolveLookups(tx, ctx.lookupTables)
  const shownIx = tx.instructions.slice(0, MAX_INSTRUCTIONS_SHOWN)
  const instructions = shownIx.map((ix, i) =>
    describeInstruction(
      i + 1,
      ix.programAddress,
      ix.accountIndexes.map((a) => accounts[a]!),
      ix.data,
      ienv,
    ),
  )
  const warnings: string[] = []
  const rows: Row[] = [
    { label: 'Network', value: `${env.network} (${env.cluster})` },
    { label: 'Fee payer', value: tx.feePayer, ...own(tx.feePayer, env) },
  ]
  if (tx.signers.length > 1) rows.push({ label: 'Also signed by', value: tx.signers.slice(1).map(ienv.who).join(', ') })
  for (const ix of instructions) {
    rows.push({
      label: `#${ix.index} ${ix.programName ?? 'Unknown program'}`,
      value: ix.summary,
      ...(ix.detail ? { detail: ix.detail } : {}),
    })
    for (const w of ix.warnings) if (!warnings.includes(w)) warnings.push(w)
  }
  if (tx.instructions.length > shownIx.length)
    warnings.push(
      `The transaction has ${tx.instructions.length} instructions; only the first ${shownIx.length} are shown. ` +
        'Approve only if you trust the dapp.',
    )
  if (tx.instructions.length === 0) rows.push({ label: 'Instructions', value: 'none (it only pays the fee)' })
  const fee = feeRow(tx, instructions)
  rows.push(fee.row)
  rows.push(...simulationRows(ctx, warnings))
  rows.push(...balanceRows(ctx, ienv.who))
  const nonce = instructions[0]?.advancesNonce === true
  rows.push(
    nonce
      ? { label: 'Lifetime', value: 'durable nonce (does not expire)', detail: `nonce value ${tx.recentBlockhash}` }
      : {
          label: 'Recent blockhash',
          value: tx.recentBlockhash,
          ...(ctx.blockhashValid === false ? { detail: 'expired' } : {}),
        },
  )
  if (nonce)
    warnings.push(
      'The transaction uses a durable nonce: it does not expire, so whoever holds it signed can send it at any later ' +
        'time.',
    )
  if (!nonce && ctx.blockhashValid === false)
    warnings.push('The recent blockhash has expired: sending will fail. Ask the dapp to build the transaction again.')
  const unresolved = accounts.filter((a) => a.address === undefined).length
  if (tx.lookups.length > 0)
    rows.push({
      label: 'Version',
      value: `v0 with ${tx.lookups.length} address lookup table${tx.lookups.length === 1 ? '' : 's'}`,
      detail: tx.lookups.map((l) => l.table).join(', '),
    })
  if (unresolved > 0)
    warnings.push(
      `${unresolved} account${unresolved === 1 ? ' comes' : 's come'} from address lookup tables the wallet could ` +
        'not read: they are shown as table and entry, not as addresses.',
    )
  for (const u of ctx.unavailable ?? []) warnings.push(u)
  return {
    rows,
    warnings,
    feePayer: tx.feePayer,
    signers: tx.signers,
    recentBlockhash: tx.recentBlockhash,
    version: tx.version,
    instructions,
    logs: ctx.simulation?.logs ?? [],
    feeLamports: fee.lamports.toString(),
  }
}

/**
 * The view of a base64 transaction. Never throws: bytes that are not a transaction give a view that says so (the
 * request handlers refuse such a transaction before it is ever shown; see decodeSolanaTransaction).
 */
export function describeSolanaTransaction(
  txBase64: string,
  context: SolanaTransactionContext | undefined,
  env: SolanaDescribeEnv,
): SolanaTransactionView {
  let tx: DecodedSolanaTransaction
  try {
    tx = decodeSolanaTransactionBase64(txBase64)
  } catch (e) {
    const why = e instanceof SolanaDecodeError ? e.message : 'The transaction could not be decoded.'
    return {
      rows: [{ label: 'Network', value: `${env.network} (${env.cluster})` }],
      warnings: [`${why} Do not approve it.`],
      signers: [],
      instructions: [],
      logs: [],
    }
  }
  return describeDecodedTransaction(tx, context, env)
}
