/**
 * What each `chaingate wallet …` command group gets from the dispatcher (src/cli/wallet-commands.ts): the parsed
 * words and options, the wallet's repository and config, and how to print.
 */
import type { WalletConfig } from '../config/wallet-schema.ts'
import type { DescribeEnv } from '../wallet/describe/index.ts'
import type { WalletRepository } from '../wallet/repository.ts'

/** A mistake in the command line: printed with exit code 2. */
export class UsageError extends Error {}

export interface WalletCommandEnv {
  action: string | undefined
  arg: string | undefined
  values: {
    words?: string
    force?: boolean
    'mnemonic-file'?: string
    label?: string
    accounts?: string
    scopes?: string
  }
  repository: WalletRepository
  config: WalletConfig
  /** The keystore file. */
  path: string
  now: number
  /** The chains the config serves, to name networks in descriptions. */
  describeEnv: () => Promise<DescribeEnv>
  passphrase(): string
  readStdin(): Promise<string>
  json: boolean
  /** Prints `human`, or `data` as JSON with --json. */
  print(human: string, data: unknown): void
}
