/**
 * Why an embedded anvil chain could not start: a module of its own, as the Solana devnet's (./solana/errors.ts), so
 * that the parts of starting one (./anvil.ts, ./process.ts, ./accounts.ts) share it without importing each other.
 */
export type AnvilErrorCode =
  | 'ANVIL_BINARY_MISSING'
  | 'ANVIL_PORT_IN_USE'
  | 'ANVIL_EXITED'
  | 'ANVIL_START_TIMEOUT'
  | 'ANVIL_BAD_MNEMONIC'

/** A devnet that could not start. `output` holds the last lines anvil printed (why it failed). */
export class AnvilError extends Error {
  override readonly name = 'AnvilError'
  readonly code: AnvilErrorCode
  readonly output: string
  constructor(code: AnvilErrorCode, message: string, output = '') {
    super(output ? `${message}\n--- last anvil output ---\n${output}` : message)
    this.code = code
    this.output = output
  }
}
