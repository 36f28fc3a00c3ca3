/**
 * One instruction of a Solana transaction as a person reads it. The programs' own clients decode the data
 * (@solana-program/system, /token, /compute-budget); what they cannot decode (an unknown program, a malformed or
 * unsupported instruction) is named by program id with its data as bounded hex, and flagged.
 */
import { AccountRole, type Address } from '@solana/kit'
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  ComputeBudgetInstruction,
  parseComputeBudgetInstruction,
} from '@solana-program/compute-budget'
import { parseSystemInstruction, SYSTEM_PROGRAM_ADDRESS, SystemInstruction } from '@solana-program/system'
import type { SolanaAccountRef } from './decode.ts'
import { hexPreview, oneLine, sol } from './format.ts'
import { MEMO_PROGRAMS, PROGRAM_NAMES, programLabel, splitName } from './programs.ts'
import type { InstructionEnv, InstructionView, ParsableInstruction } from './instruction-types.ts'
import { describeTokenInstruction, TOKEN_PROGRAMS } from './token.ts'

/** A lookup-table entry not resolved locally reads `entry 3 of lookup table <table>`. */
export function accountText(ref: SolanaAccountRef): string {
  return ref.address ?? `entry ${ref.lookup?.index} of lookup table ${ref.lookup?.table}`
}

export function toParsable(program: string, refs: SolanaAccountRef[], data: Uint8Array): ParsableInstruction {
  return {
    programAddress: program as Address,
    accounts: refs.map((r) => ({
      address: accountText(r) as Address,
      role: r.signer
        ? r.writable
          ? AccountRole.WRITABLE_SIGNER
          : AccountRole.READONLY_SIGNER
        : r.writable
          ? AccountRole.WRITABLE
          : AccountRole.READONLY,
    })),
    data,
  }
}

type Described = Omit<InstructionView, 'index' | 'program' | 'programName' | 'warnings'> & { warnings?: string[] }

function describeSystem(ix: ParsableInstruction, env: InstructionEnv): Described {
  const p = parseSystemInstruction(ix)
  const w = (m: { address: string }) => env.who(m.address)
  switch (p.instructionType) {
    case SystemInstruction.TransferSol:
      return {
        summary: `Transfer ${sol(p.data.amount)}`,
        detail: `from ${w(p.accounts.source)} to ${w(p.accounts.destination)}`,
        decoded: true,
      }
    case SystemInstruction.TransferSolWithSeed:
      return {
        summary: `Transfer ${sol(p.data.amount)}`,
        detail:
          `from ${w(p.accounts.source)} (derived from ${env.who(p.data.fromOwner)}) ` +
          `to ${w(p.accounts.destination)}`,
        decoded: true,
      }
    case SystemInstruction.CreateAccount:
    case SystemInstruction.CreateAccountAllowPrefund: {
      const d = p.data as { lamports: bigint; space: bigint; programAddress: string }
      return {
        summary: `Create an account funded with ${sol(d.lamports)}`,
        detail:
          `new account ${w(p.accounts.newAccount as { address: string })}, ${d.space} bytes, owned by ` +
          `${programLabel(d.programAddress)}; paid by ${w(p.accounts.payer as { address: string })}`,
        decoded: true,
      }
    }
    case SystemInstruction.CreateAccountWithSeed:
      return {
        summary: `Create an account funded with ${sol(p.data.amount)}`,
        detail:
          `new account ${w(p.accounts.newAccount)} (seed "${oneLine(p.data.seed, 64)}" of ${env.who(p.data.base)}), ` +
          `${p.data.space} bytes, owned by ${programLabel(p.data.programAddress)}; paid by ${w(p.accounts.payer)}`,
        decoded: true,
      }
    case SystemInstruction.Assign: {
      const account = p.accounts.account.address
      return {
        summary: `Assign an account to ${programLabel(p.data.programAddress)}`,
        detail: `account ${w(p.accounts.account)}`,
        decoded: true,
        warnings: env.isOwn(account)
          ? [
              `Instruction gives ${programLabel(p.data.programAddress)} ownership of your account ${account}: that ` +
                'program could then move all its SOL. Approve only if you know why.',
            ]
          : [],
      }
    }
    case SystemInstruction.Allocate:
      return { summary: `Allocate ${p.data.space} bytes`, detail: `for ${w(p.accounts.newAccount)}`, decoded: true }
    case SystemInstruction.AdvanceNonceAccount:
      return {
        summary: 'Advance a durable nonce',
        detail: `nonce account ${w(p.accounts.nonceAccount)}, authority ${w(p.accounts.nonceAuthority)}`,
        decoded: true,
        advancesNonce: true,
      }
    case SystemInstruction.WithdrawNonceAccount:
      return {
        summary: `Withdraw ${sol(p.data.withdrawAmount)} from a nonce account`,
        detail: `from ${w(p.accounts.nonceAccount)} to ${w(p.accounts.recipientAccount)}`,
        decoded: true,
      }
    default:
      return { summary: splitName(SystemInstruction[p.instructionType] ?? 'instruction'), decoded: true }
  }
}

function describeComputeBudget(ix: ParsableInstruction): Described {
  const p = parseComputeBudgetInstruction(ix)
  switch (p.instructionType) {
    case ComputeBudgetInstruction.SetComputeUnitLimit:
      return { summary: `Compute unit limit ${p.data.units}`, decoded: true, budget: { unitLimit: p.data.units } }
    case ComputeBudgetInstruction.SetComputeUnitPrice:
      return {
        summary: `Priority price ${p.data.microLamports} micro-lamports per compute unit`,
        decoded: true,
        budget: { microLamportsPerUnit: BigInt(p.data.microLamports) },
      }
    case ComputeBudgetInstruction.RequestHeapFrame:
      return { summary: `Heap frame of ${p.data.bytes} bytes`, decoded: true }
    case ComputeBudgetInstruction.SetLoadedAccountsDataSizeLimit:
      return { summary: `Loaded accounts data limit ${p.data.accountDataSizeLimit} bytes`, decoded: true }
    default:
      return { summary: splitName(ComputeBudgetInstruction[p.instructionType] ?? 'instruction'), decoded: true }
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

function describeMemo(ix: ParsableInstruction): Described {
  const text = UTF8.decode(ix.data) // not UTF-8: the Memo program refuses it, and the caller shows it as undecoded
  return { summary: `Memo "${oneLine(text)}"`, decoded: true }
}

function undecoded(ix: ParsableInstruction, why: string): Described {
  return {
    summary: why,
    detail: `${ix.accounts.length} accounts, ${ix.data.length} bytes of data: ${hexPreview(ix.data)}`,
    decoded: false,
  }
}

/** Describes instruction `index` (1-based); never throws: what cannot be decoded is shown as bytes and flagged. */
export function describeInstruction(
  index: number,
  program: string,
  refs: SolanaAccountRef[],
  data: Uint8Array,
  env: InstructionEnv,
): InstructionView {
  const ix = toParsable(program, refs, data)
  const programName = PROGRAM_NAMES[program]
  let d: Described
  try {
    if (program === SYSTEM_PROGRAM_ADDRESS) d = describeSystem(ix, env)
    else if (program === COMPUTE_BUDGET_PROGRAM_ADDRESS) d = describeComputeBudget(ix)
    else if (TOKEN_PROGRAMS.includes(program)) d = describeTokenInstruction(ix, env)
    else if (MEMO_PROGRAMS.includes(program)) d = describeMemo(ix)
    else d = undecoded(ix, programName ? `${programName} instruction (not decoded)` : 'Unknown program')
  } catch {
    // The program's client refused the data or accounts (too short, unknown instruction): the program would too.
    d = undecoded(ix, `${programName ?? 'Program'} instruction that could not be decoded`)
  }
  const warnings = [...(d.warnings ?? [])]
  if (!d.decoded)
    warnings.push(
      programName
        ? `Instruction #${index} (${programName}, ${program}) could not be decoded: approve only if you trust the dapp.`
        : `Instruction #${index} calls an unknown program ${program}: the wallet cannot tell what it does. Approve ` +
            'only if you trust the dapp.',
    )
  return {
    index,
    program,
    ...(programName ? { programName } : {}),
    ...d,
    warnings,
  }
}
