/**
 * Commands contributed by other parts (wallet, dashboard) so src/cli/main.ts stays a table of contents.
 */
import type { CliContext } from './context.ts'
import { WALLET_HELP } from './wallet-help.ts'

export interface ExtraCommand {
  command: string
  /** Lines for --help, each ending in a newline. */
  help: string
  run(args: string[], options: Record<string, unknown>, ctx: CliContext): Promise<number>
}

export function extraCommands(): ExtraCommand[] {
  // The command's code loads only when it runs (`--help` needs the text alone).
  return [
    {
      command: 'wallet',
      help: WALLET_HELP,
      run: async (args, options, ctx) =>
        (await import('./wallet-commands.ts')).walletExtraCommand.run(args, options, ctx),
    },
  ]
}
