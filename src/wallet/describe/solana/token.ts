/**
 * SPL Token, Token-2022 and Associated Token Account instructions, decoded by @solana-program/token. Token-2022 shares
 * the Token program's instructions 0-24 byte for byte (https://spl.solana.com/token-2022); its extension
 * instructions are named, not decoded.
 */
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  AssociatedTokenInstruction,
  AuthorityType,
  parseAssociatedTokenInstruction,
  parseTokenInstruction,
  TOKEN_PROGRAM_ADDRESS,
  TokenInstruction,
} from '@solana-program/token'
import { hexPreview, tokenAmount, U64_MAX } from './format.ts'
import type { InstructionEnv, InstructionView, ParsableInstruction } from './instruction-types.ts'
import { splitName, TOKEN_2022_PROGRAM_ADDRESS } from './programs.ts'

/** Programs whose instructions this file decodes. */
export const TOKEN_PROGRAMS: string[] = [
  TOKEN_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
]
/** The SPL token programs (token accounts and mints live under them). */
export const SPL_TOKEN_PROGRAMS: string[] = [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]
/** Token-2022 instructions past this one are its extensions, which the Token program's layouts do not cover. */
const LAST_SHARED_TOKEN_INSTRUCTION = TokenInstruction.UiAmountToAmount

export const UNLIMITED_SPL_WARNING =
  'Unlimited approval: the delegate can move ALL of this token from the account, now and later, until the approval ' +
  'is revoked.'

type Described = Pick<InstructionView, 'summary' | 'detail' | 'decoded'> & { warnings?: string[] }
type Meta = { address: string }

/** `token account X (owner: your account #0 "main")` when the owner was read, else the address. */
function tokenAccountText(account: Meta, env: InstructionEnv): string {
  const read = env.tokenAccount(account.address)
  return read ? `${account.address} (owner: ${env.who(read.owner)})` : env.who(account.address)
}

/** Amount with decimals from the instruction (…Checked), else from the token accounts or mint read beforehand. */
function amountOf(amount: bigint, accounts: Meta[], env: InstructionEnv, decimals?: number, mint?: string): string {
  return `${tokenAmount(amount, decimalsOf(accounts, env, decimals, mint))}${ofToken(accounts, env, mint)}`
}

function decimalsOf(accounts: Meta[], env: InstructionEnv, decimals?: number, mint?: string): number | undefined {
  const read = accounts.map((a) => env.tokenAccount(a.address)).find((r) => r !== undefined)
  const m = mint ?? read?.mint
  return decimals ?? (m ? env.mintDecimals(m) : undefined) ?? read?.decimals
}

/** ` of token <mint>` when the mint is known (from the instruction or the token account read). */
function ofToken(accounts: Meta[], env: InstructionEnv, mint?: string): string {
  const m = mint ?? accounts.map((a) => env.tokenAccount(a.address)?.mint).find((x) => x !== undefined)
  return m ? ` of token ${m}` : ''
}

function approval(
  amount: bigint,
  accounts: { source: Meta; delegate: Meta; owner: Meta; mint?: Meta },
  env: InstructionEnv,
  decimals?: number,
) {
  const { source, delegate, owner, mint } = accounts
  const unlimited = amount === U64_MAX
  return {
    summary: unlimited
      ? `Approve ${env.who(delegate.address)} to spend an UNLIMITED amount${ofToken([source], env, mint?.address)}`
      : `Approve ${env.who(delegate.address)} to spend ${amountOf(amount, [source], env, decimals, mint?.address)}`,
    detail: `from ${tokenAccountText(source, env)}; owner ${env.who(owner.address)}`,
    decoded: true,
    warnings: unlimited ? [UNLIMITED_SPL_WARNING] : [],
  }
}

function transferDetail(a: { source: Meta; destination: Meta; authority: Meta }, env: InstructionEnv): string {
  const [from, to] = [tokenAccountText(a.source, env), tokenAccountText(a.destination, env)]
  return `from ${from} to ${to}; signed by ${env.who(a.authority.address)}`
}

function describeSpl(ix: ParsableInstruction, env: InstructionEnv): Described {
  if (ix.programAddress === TOKEN_2022_PROGRAM_ADDRESS && (ix.data[0] ?? 0) > LAST_SHARED_TOKEN_INSTRUCTION)
    return {
      summary: `Token-2022 extension instruction ${ix.data[0]} (not decoded)`,
      detail: `${ix.accounts.length} accounts, ${ix.data.length} bytes of data: ${hexPreview(ix.data)}`,
      decoded: false,
    }
  const p = parseTokenInstruction(ix)
  const who = (m: Meta) => env.who(m.address)
  switch (p.instructionType) {
    case TokenInstruction.Transfer: {
      const { source, destination } = p.accounts
      return {
        summary: `Transfer ${amountOf(p.data.amount, [source, destination], env)}`,
        detail: transferDetail(p.accounts, env),
        decoded: true,
      }
    }
    case TokenInstruction.TransferChecked: {
      const { source, mint } = p.accounts
      return {
        summary: `Transfer ${amountOf(p.data.amount, [source], env, p.data.decimals, mint.address)}`,
        detail: transferDetail(p.accounts, env),
        decoded: true,
      }
    }
    case TokenInstruction.Approve:
      return approval(p.data.amount, p.accounts, env)
    case TokenInstruction.ApproveChecked:
      return approval(p.data.amount, p.accounts, env, p.data.decimals)
    case TokenInstruction.Revoke:
      return { summary: 'Revoke the delegate', detail: `of ${tokenAccountText(p.accounts.source, env)}`, decoded: true }
    case TokenInstruction.SetAuthority: {
      const next = p.data.newAuthority.__option === 'Some' ? env.who(p.data.newAuthority.value) : 'nobody'
      const kind = splitName(AuthorityType[p.data.authorityType] ?? 'authority').toLowerCase()
      const risky =
        p.data.authorityType === AuthorityType.AccountOwner || p.data.authorityType === AuthorityType.CloseAccount
      return {
        summary: `Set the ${kind} authority to ${next}`,
        detail: `of ${tokenAccountText(p.accounts.owned, env)}; current authority ${who(p.accounts.owner)}`,
        decoded: true,
        warnings: risky
          ? [`This hands the ${kind} authority of ${p.accounts.owned.address} to ${next}: they will control it.`]
          : [],
      }
    }
    case TokenInstruction.MintTo:
    case TokenInstruction.MintToChecked: {
      const d = p.data as { amount: bigint; decimals?: number }
      return {
        summary: `Mint ${amountOf(d.amount, [p.accounts.token], env, d.decimals, p.accounts.mint.address)}`,
        detail: `to ${tokenAccountText(p.accounts.token, env)}`,
        decoded: true,
      }
    }
    case TokenInstruction.Burn:
    case TokenInstruction.BurnChecked: {
      const d = p.data as { amount: bigint; decimals?: number }
      return {
        summary: `Burn ${amountOf(d.amount, [p.accounts.account], env, d.decimals, p.accounts.mint.address)}`,
        detail: `from ${tokenAccountText(p.accounts.account, env)}`,
        decoded: true,
      }
    }
    case TokenInstruction.CloseAccount:
      return {
        summary: 'Close a token account',
        detail: `${tokenAccountText(p.accounts.account, env)}; its SOL goes to ${who(p.accounts.destination)}`,
        decoded: true,
      }
    default:
      return { summary: splitName(TokenInstruction[p.instructionType] ?? 'instruction'), decoded: true }
  }
}

function describeAssociatedToken(ix: ParsableInstruction, env: InstructionEnv): Described {
  // The original Create instruction carries no data at all.
  const p = parseAssociatedTokenInstruction(ix.data.length === 0 ? { ...ix, data: Uint8Array.of(0) } : ix)
  if (p.instructionType === AssociatedTokenInstruction.RecoverNestedAssociatedToken)
    return { summary: 'Recover a nested associated token account', decoded: true }
  const { payer, ata, owner, mint } = p.accounts
  const idempotent = p.instructionType === AssociatedTokenInstruction.CreateAssociatedTokenIdempotent
  return {
    summary: `Create the token account for token ${mint.address}${idempotent ? ' (if missing)' : ''}`,
    detail: `account ${ata.address} of ${env.who(owner.address)}; rent paid by ${env.who(payer.address)}`,
    decoded: true,
  }
}

export function describeTokenInstruction(ix: ParsableInstruction, env: InstructionEnv): Described {
  return ix.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS
    ? describeAssociatedToken(ix, env)
    : describeSpl(ix, env)
}
