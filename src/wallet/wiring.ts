/**
 * How the app runs the wallet (src/app.ts `AppOptions.services`):
 *   startApp({ config, services: [walletAppService()], … })
 * Started after the gateway listener: the wallet's reads, broadcasts and subscriptions go through the in-process
 * gateway client, charged to the wallet's own API key (account `wallet@localhost` on the dev plan, key "wallet", created on
 * first start). `wallet.enabled: false` starts nothing. `info` feeds the lines `chaingate start` prints.
 */
import { resolve } from 'node:path'
import type { RunningApp } from '../app.ts'
// Composition: the wallet with its listener (src/http/wallet). This file belongs to the composition root.
import { createWalletService } from '../http/wallet/service.ts'

export const WALLET_ACCOUNT_EMAIL = 'wallet@localhost'

/** The wallet's own gateway key (found or created), so its usage shows up like any client's. */
async function ensureWalletKey(app: RunningApp): Promise<string> {
  const plans = app.config.plans
  const plan = app.config.gateway.devAccount?.plan ?? ('dev' in plans ? 'dev' : app.config.gateway.defaultPlan)
  const account =
    (await app.accounts.findByEmail(WALLET_ACCOUNT_EMAIL)) ?? (await app.accounts.create({ email: WALLET_ACCOUNT_EMAIL, plan }, app.clock.now()))
  const existing = (await app.keys.list({ accountId: account.id })).find((k) => !k.revokedAt)
  const key = existing ?? (await app.keys.create({ accountId: account.id, name: 'wallet' }, app.clock.now()))
  await app.keySnapshot.reload()
  return key.id
}

export function walletAppService(): (app: RunningApp) => Promise<{ stop(): Promise<void>; info?: Record<string, string> }> {
  return async (app) => {
    const config = app.config.wallet
    if (!config.enabled) return { stop: async () => {} }
    const keyId = await ensureWalletKey(app)
    const chainAccess = app.inProcessClient(keyId)
    const service = createWalletService({
      config,
      dataDir: resolve(app.config.dataDir),
      db: app.database.db,
      chainAccess,
      networks: app.config.networks.map((n) => ({ name: n.name, embedded: n.embedded !== undefined })),
      logger: app.logger,
      clock: app.clock,
    })
    const started = await service.start()
    const info: Record<string, string> = {
      'wallet (CAIP-25 over WebSocket)': started.url,
      'wallet console': started.consoleUrl,
    }
    if (started.socketUrl) info['wallet (unix socket, this user only)'] = started.socketUrl
    if (started.publicTestKeys)
      info['wallet keys'] = 'the PUBLIC anvil test mnemonic (test test … junk): funded on the devnets, anyone can spend them'
    if (config.autoApprove) info['wallet approvals'] = 'AUTO-APPROVE IS ON: every request is approved without asking'
    return { stop: () => service.stop(), info }
  }
}
