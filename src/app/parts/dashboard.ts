/**
 * The dashboard as a part (src/app/build.ts): mounted on the gateway listener, reusing the app's database, clock,
 * logger and repositories; config `dashboard.enabled: false` mounts nothing.
 */
import type { FastifyInstance } from 'fastify'
import type { AccountsRepository } from '../../accounts/repository.ts'
import type { Config } from '../../config/schema.ts'
import { registerDashboard } from '../../dashboard/plugin.ts'
import type { OpenedDatabase } from '../../db/database.ts'
import type { Clock } from '../../gateway/pipeline/types.ts'
import type { KeysRepository } from '../../keys/repository.ts'
import type { Logger } from '../../observability/logger.ts'
import type { DashboardLimiters } from '../../accounts/login-limiter.ts'
import type { Mailer } from '../../mail/mailer.ts'
import type { RedisConnection } from '../../redis/connection.ts'

export interface DashboardParts {
  config: Config
  database: OpenedDatabase
  clock: Clock
  logger: Logger
  accounts: AccountsRepository
  keys: KeysRepository
  redis: RedisConnection | undefined
  mailer: Mailer
  /** The process's log-in limiters, shared with the admin API's unlock. */
  limiters: DashboardLimiters
}

/** The gateway-listener plugin that mounts the dashboard, or none when the config turns it off. */
export function dashboardPlugins(app: DashboardParts): ((fastify: FastifyInstance) => Promise<void>)[] {
  if (!app.config.dashboard.enabled) return []
  return [
    (fastify) =>
      registerDashboard(fastify, {
        db: app.database.db,
        config: app.config,
        clock: app.clock,
        logger: app.logger,
        accounts: app.accounts,
        keys: app.keys,
        redis: app.redis,
        mailer: app.mailer,
        limiters: app.limiters,
      }),
  ]
}
