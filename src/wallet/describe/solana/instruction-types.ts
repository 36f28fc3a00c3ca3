/**
 * What the instruction describers share: the view of one instruction, what they may ask about accounts, and the
 * instruction as the program clients parse it. Apart from ./instructions.ts, which dispatches to the describers
 * (./token.ts), so that they do not import it back.
 */
import type { AccountMeta, Address } from '@solana/kit'

/** What the describers need to know about accounts: labels and what `prepare…` read from the chain. */
export interface InstructionEnv {
  /** The address with `(your account #i "label")` when it is the wallet's. */
  who(account: string): string
  isOwn(account: string): boolean
  /** An SPL token account's mint, owner and decimals, when read. */
  tokenAccount(account: string): { mint: string; owner: string; decimals?: number } | undefined
  mintDecimals(mint: string): number | undefined
}

export interface InstructionView {
  /** 1-based position in the transaction. */
  index: number
  program: string
  programName?: string
  summary: string
  detail?: string
  /** False when the data was not decoded (unknown program, unsupported or malformed instruction). */
  decoded: boolean
  warnings: string[]
  /** Compute Budget settings, summed up into the fee by the transaction view. */
  budget?: { unitLimit?: number; microLamportsPerUnit?: bigint }
  /** The instruction advances a durable nonce (the transaction does not expire with its blockhash). */
  advancesNonce?: boolean
}

/** The instruction in the shape the program clients parse: accounts as display strings with their roles. */
export interface ParsableInstruction {
  programAddress: Address
  accounts: AccountMeta[]
  data: Uint8Array
}
