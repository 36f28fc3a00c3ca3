/**
 * The composition root: the one place that decides which parts run and how they are wired to the gateway core
 * (src/app/core.ts builds the core, with key security always on). `chaingate start` uses `appOptions(config)`;
 * tests and the bench pick parts from here.
 *
 *   startApp({ config, plugins: [dashboardPlugin()], services: [walletAppService()] })
 *
 * - The dashboard is mounted on the gateway listener and reuses the app's database, clock, logger and
 *   repositories; `dashboard.enabled: false` mounts nothing.
 * - The wallet starts after the gateway listener: its reads, broadcasts and subscriptions go through the
 *   in-process gateway client, charged to the wallet's own API key (account `wallet@localhost` on the dev plan,
 *   key "wallet", created on first start); its listener is src/wallet/listener. `wallet.enabled: false` starts nothing.
 */
import { resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { AppOptions, RunningApp } from './core.ts'
import { evaluateKeyAccess } from '../keys/security/evaluate.ts'
import { loadAllKeySecurity } from '../keys/security/repository.ts'
import type { SecurityLoader } from '../keys/snapshot.ts'
import type { Config } from '../config/schema.ts'
import { registerDashboard } from '../dashboard/plugin.ts'
import type { AccessCheck } from '../gateway/pipeline/types.ts'
import { createWalletService } from '../wallet/listener/start.ts'

/** What `chaingate start` runs: the gateway (with key security), the dashboard and the wallet, each per config. */
export function appOptions(config: Config): AppOptions {
  return { config, plugins: [dashboardPlugin()], services: [walletAppService()] }
}

/**
 * Key security with another JWT audience or clock than the config's (tests). Without it startApp uses the
 * same loader and check with config `dashboard.jwtAudience`.
 */
export function keySecurityOptions(opts: { jwtAudience: string; clock?: { now(): number } }): {
  load: SecurityLoader
  check: AccessCheck
} {
  const clock = opts.clock ?? Date
  return {
    load: loadAllKeySecurity,
    check: (security, request) =>
      evaluateKeyAccess(security, request, { jwtAudience: opts.jwtAudience, now: clock.now() }),
  }
}

export function dashboardPlugin(): (fastify: FastifyInstance, app: RunningApp) => Promise<void> {
  return async (fastify, app) => {
    const config = app.config
    if (!config.dashboard.enabled) return
    await registerDashboard(fastify, {
      db: app.database.db,
      config,
      clock: app.clock,
      logger: app.logger,
      accounts: app.accounts,
      keys: app.keys,
      redis: app.redis,
    })
  }
}

export const WALLET_ACCOUNT_EMAIL = 'wallet@localhost'

/** The wallet's own gateway key (found or created), so its usage shows up like any client's. */
async function ensureWalletKey(app: RunningApp): Promise<string> {
  const plans = app.config.plans
  const plan = app.config.gateway.devAccount?.plan ?? ('dev' in plans ? 'dev' : app.config.gateway.defaultPlan)
  const account =
    (await app.accounts.findByEmail(WALLET_ACCOUNT_EMAIL)) ??
    (await app.accounts.create({ email: WALLET_ACCOUNT_EMAIL, plan }, app.clock.now()))
  const existing = (await app.keys.list({ accountId: account.id })).find((k) => !k.revokedAt)
  const key = existing ?? (await app.keys.create({ accountId: account.id, name: 'wallet' }, app.clock.now()))
  await app.keySnapshot.reload()
  return key.id
}

export function walletAppService(): (
  app: RunningApp,
) => Promise<{ stop(): Promise<void>; info?: Record<string, string> }> {
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
      info['wallet keys'] =
        'the PUBLIC anvil test mnemonic (test test … junk): funded on the devnets, anyone can spend them'
    if (config.autoApprove) info['wallet approvals'] = 'AUTO-APPROVE IS ON: every request is approved without asking'
    return { stop: () => service.stop(), info }
  }
}
