export type SolanaDevnetErrorCode =
  | 'SOLANA_DEVNET_PORT_IN_USE'
  | 'SOLANA_DEVNET_EXITED'
  | 'SOLANA_DEVNET_START_TIMEOUT'
  | 'SOLANA_DEVNET_BAD_MNEMONIC'
  | 'SOLANA_VALIDATOR_MISSING'

/** A Solana devnet that could not start (like AnvilError). `output` holds the last lines the process printed. */
export class SolanaDevnetError extends Error {
  override readonly name = 'SolanaDevnetError'
  readonly code: SolanaDevnetErrorCode
  readonly output: string
  constructor(code: SolanaDevnetErrorCode, message: string, output = '') {
    super(output ? `${message}\n--- last devnet output ---\n${output}` : message)
    this.code = code
    this.output = output
  }
}
