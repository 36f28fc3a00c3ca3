/** The programs the Solana view names, and how it turns their instruction names into words. */
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '@solana-program/compute-budget'
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system'
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'

/** Token-2022 (https://spl.solana.com/token-2022); its client package is not a dependency. */
export const TOKEN_2022_PROGRAM_ADDRESS = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'

export const MEMO_PROGRAMS = [
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
]

/** Programs the view names (decoded or not). */
export const PROGRAM_NAMES: Record<string, string> = {
  [SYSTEM_PROGRAM_ADDRESS]: 'System Program',
  [COMPUTE_BUDGET_PROGRAM_ADDRESS]: 'Compute Budget Program',
  [TOKEN_PROGRAM_ADDRESS]: 'Token Program',
  [TOKEN_2022_PROGRAM_ADDRESS]: 'Token-2022 Program',
  [ASSOCIATED_TOKEN_PROGRAM_ADDRESS]: 'Associated Token Account Program',
  [MEMO_PROGRAMS[0]!]: 'Memo Program',
  [MEMO_PROGRAMS[1]!]: 'Memo Program (v1)',
  AddressLookupTab1e1111111111111111111111111: 'Address Lookup Table Program',
  Stake11111111111111111111111111111111111111: 'Stake Program',
  Vote111111111111111111111111111111111111111: 'Vote Program',
  BPFLoaderUpgradeab1e11111111111111111111111: 'BPF Upgradeable Loader',
  Config1111111111111111111111111111111111111: 'Config Program',
  Ed25519SigVerify111111111111111111111111111: 'Ed25519 signature check',
  KeccakSecp256k11111111111111111111111111111: 'Secp256k1 signature check',
}

/** `TransferChecked` → `Transfer checked`. */
export function splitName(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export function programLabel(program: string): string {
  const name = PROGRAM_NAMES[program]
  return name ? `${name} (${program})` : `program ${program}`
}
