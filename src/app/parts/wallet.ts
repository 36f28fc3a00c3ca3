/**
 * The wallet as a part (src/app/build.ts), started after the gateway listener: its reads, broadcasts and
 * subscriptions go through the in-process gateway client, charged to the wallet's own API key (account
 * `wallet@localhost` on the dev plan, key "wallet", created on first start), so its usage shows up like any
 * client's; its listener is src/wallet/listener. Config `wallet.enabled: false` starts nothing.
 */
import { resolve } from 'node:path'
import type { Config } from '../../config/schema.ts'
import type { OpenedDatabase } from '../../db/database.ts'
import type { InProcessClient } from '../../gateway/pipeline/in-process-client.ts'
import type { Clock } from '../../gateway/pipeline/types.ts'
import type { Logger } from '../../observability/logger.ts'
import { createWalletService } from '../../wallet/listener/start.ts'
import type { StopList } from '../stop-list.ts'
import { ensureAccountKey, type TenancyParts } from './keys.ts'

export const WALLET_ACCOUNT_EMAIL = 'wallet@localhost'

export interface WalletWiring extends Pick<TenancyParts, 'accounts' | 'keys' | 'keySnapshot'> {
  config: Config
  database: OpenedDatabase
  clock: Clock
  logger: Logger
  inProcessClient(keyId: string): InProcessClient
  stops: StopList
}

/** Starts the wallet (when enabled); returns the lines `chaingate start` prints about it. */
export async function startWallet(app: WalletWiring): Promise<Record<string, string>> {
  const config = app.config.wallet
  if (!config.enabled) return {}
  const plans = app.config.plans
  const plan = app.config.gateway.devAccount?.plan ?? ('dev' in plans ? 'dev' : app.config.gateway.defaultPlan)
  const key = await ensureAccountKey(app, { email: WALLET_ACCOUNT_EMAIL, plan, keyName: 'wallet' })
  const service = createWalletService({
    config,
    dataDir: resolve(app.config.dataDir),
    db: app.database.db,
    chainAccess: app.inProcessClient(key.id),
    networks: app.config.networks.map((n) => ({ name: n.name, embedded: n.embedded !== undefined })),
    logger: app.logger,
    clock: app.clock,
  })
  const started = await service.start()
  app.stops.add('wallet', () => service.stop())
  const info: Record<string, string> = {
    'wallet (CAIP-25 over WebSocket)': started.url,
    'wallet console': started.consoleUrl,
  }
  if (started.socketUrl) info['wallet (unix socket, this user only)'] = started.socketUrl
  if (started.publicTestKeys)
    info['wallet keys'] =
      'the PUBLIC anvil test mnemonic (test test … junk): funded on the devnets, anyone can spend them'
  if (config.autoApprove) info['wallet approvals'] = 'AUTO-APPROVE IS ON: every request is approved without asking'
  return info
}
