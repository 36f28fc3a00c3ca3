/**
 * What the wallet listener (./server.ts) and its console routes (./console-routes.ts, ./console-events.ts) are
 * built from. Apart from server.ts, which registers those routes, so that they do not import it back.
 */
import type { Logger } from 'pino'
import type { WalletConfig } from '../../config/wallet-schema.ts'
import type { ActivityRepository } from '../activity.ts'
import type { Approvals } from '../approvals.ts'
import type { ChangeFeed } from '../change-feed.ts'
import type { ConsoleTokens } from '../console-token.ts'
import type { WalletEngine } from '../engine.ts'
import type { ChainAccess } from '../ports.ts'
import type { WalletRepository } from '../repository.ts'

export interface WalletServerDeps {
  config: WalletConfig
  engine: WalletEngine
  approvals: Approvals
  repository: WalletRepository
  logger: Logger
  tokens: ConsoleTokens
  activity: ActivityRepository
  chainAccess: ChainAccess
  changes: ChangeFeed
}
