/** Why the embedded Solana devnet could not start, shared by the parts that start it (./devnet.ts, its processes). */
import { DevnetStartError } from '../errors.ts'

export type SolanaDevnetErrorCode =
  | 'SOLANA_DEVNET_PORT_IN_USE'
  | 'SOLANA_DEVNET_EXITED'
  | 'SOLANA_DEVNET_START_TIMEOUT'
  | 'SOLANA_DEVNET_BAD_MNEMONIC'
  | 'SOLANA_VALIDATOR_MISSING'

/** A Solana devnet that could not start (like AnvilError). */
export class SolanaDevnetError extends DevnetStartError<SolanaDevnetErrorCode> {
  override readonly name = 'SolanaDevnetError'
  constructor(code: SolanaDevnetErrorCode, message: string, output = '') {
    super(code, message, output, 'devnet')
  }
}
