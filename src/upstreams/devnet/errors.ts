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

/** A devnet that could not start, with the last lines its process printed (why it failed) in `output`. */
export class DevnetStartError<Code extends string> extends Error {
  readonly code: Code
  readonly output: string
  constructor(code: Code, message: string, output: string, program: string) {
    super(output ? `${message}\n--- last ${program} output ---\n${output}` : message)
    this.code = code
    this.output = output
  }
}

/** An embedded anvil that could not start. */
export class AnvilError extends DevnetStartError<AnvilErrorCode> {
  override readonly name = 'AnvilError'
  constructor(code: AnvilErrorCode, message: string, output = '') {
    super(code, message, output, 'anvil')
  }
}
