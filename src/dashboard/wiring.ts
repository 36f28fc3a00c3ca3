/**
 * How the app mounts the dashboard on the gateway listener (src/app.ts `AppOptions.plugins`):
 *   startApp({ config, plugins: [dashboardPlugin()], … })
 * It reuses the app's database, clock, logger and repositories. `dashboard.enabled: false` mounts nothing.
 */
import type { FastifyInstance } from 'fastify'
import type { RunningApp } from '../app.ts'
import { registerDashboard } from './plugin.ts'

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
    })
  }
}
