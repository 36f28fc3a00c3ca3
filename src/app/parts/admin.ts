/**
 * The admin API as a part (src/app/build.ts): mounted on the gateway listener and on the separate operations
 * listener when there is one, reusing the app's database, repositories and pools; nothing is mounted unless
 * `admin.token` (or CHAINGATE_ADMIN_TOKEN) is set (src/admin/plugin.ts).
 */
import type { FastifyInstance } from 'fastify'
import type { AccountsRepository } from '../../accounts/repository.ts'
import { registerAdminApi } from '../../admin/plugin.ts'
import type { ReloadOutcomes } from '../../admin/context.ts'
import type { Config } from '../../config/schema.ts'
import type { OpenedDatabase } from '../../db/database.ts'
import type { Clock } from '../../gateway/pipeline/types.ts'
import type { KeysRepository } from '../../keys/repository.ts'
import type { KeySnapshot } from '../../keys/snapshot.ts'
import type { NetworkRegistry } from '../../networks/registry.ts'
import type { Logger } from '../../observability/logger.ts'
import type { DashboardLimiters } from '../../accounts/login-limiter.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'

export interface AdminParts {
  config: Config
  database: OpenedDatabase
  clock: Clock
  logger: Logger
  accounts: AccountsRepository
  keys: KeysRepository
  keySnapshot: KeySnapshot
  networks: NetworkRegistry
  pools: Map<string, UpstreamPool>
  /** The process's log-in limiters (the dashboard's): `POST /accounts/:id/unlock` clears them. */
  limiters: DashboardLimiters
  /** Live reload of the config on every process, when this process can do it (`POST /admin/v1/reload`). */
  reload?: (() => Promise<ReloadOutcomes>) | undefined
}

/** The plugin that mounts the admin API on a listener, or none when no token is configured. */
export function adminPlugins(app: AdminParts): ((fastify: FastifyInstance) => Promise<void>)[] {
  if (!app.config.admin.token) return []
  return [
    (fastify) =>
      registerAdminApi(fastify, {
        db: app.database.db,
        config: app.config,
        clock: app.clock,
        logger: app.logger,
        accounts: app.accounts,
        keys: app.keys,
        networks: app.networks,
        pools: app.pools,
        limiters: app.limiters,
        refreshKeys: () => app.keySnapshot.refresh(),
        reload: app.reload,
      }),
  ]
}
