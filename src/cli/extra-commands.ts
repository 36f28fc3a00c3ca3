/**
 * Commands contributed by other parts (wallet, dashboard) so src/cli/main.ts stays a table of contents.
 */
import type { CliContext } from './main.ts'
import { walletExtraCommand } from './wallet.ts'

export interface ExtraCommand {
  command: string
  /** Lines for --help, each ending in a newline. */
  help: string
  run(args: string[], options: Record<string, unknown>, ctx: CliContext): Promise<number>
}

export function extraCommands(): ExtraCommand[] {
  return [walletExtraCommand]
}
