/**
 * Which parts one chaingate process runs, per role (src/app/build.ts builds them):
 * - `single` (`chaingate start`, `npm start`): the gateway, the dashboard, the admin API, the wallet and usage
 *   alerts, each per config;
 * - `cluster-primary` (`--workers N`): what must exist once — the embedded chains and the wallet, whose in-process
 *   gateway listens on an internal port only (the workers hold the public listener and the operations listener);
 * - `cluster-worker`: the gateway listener (shared by node:cluster), the dashboard, the admin API and usage alerts
 *   (each worker sweeps; the database lets one of them send each alert), over the primary's chains.
 */
import type { Config } from '../config/schema.ts'
import type { Logger } from '../observability/logger.ts'
import type { RequestWriter } from '../usage/requests/recorder.ts'
import { startApp, type AppOptions, type RunningApp } from './build.ts'

export type Role =
  | { kind: 'single' }
  | { kind: 'cluster-primary' }
  | {
      kind: 'cluster-worker'
      embeddedUrls: Map<string, { url: string; wsUrl: string }>
      number?: string
      /** On SQLite: the request explorer's batches go to the primary (src/app/cluster/request-explorer-relay.ts). */
      requestWriter?: RequestWriter
    }

/** The config as `role` runs it (the config is copied, never changed, where the role adjusts it). */
function roleConfig(role: Role, config: Config): Config {
  if (role.kind !== 'cluster-primary') return config
  // The primary's gateway is only the wallet's way to the chains (in-process): it must not take the public ports.
  const primaryConfig: Config = structuredClone(config)
  primaryConfig.gateway.port = 0
  primaryConfig.gateway.host = '127.0.0.1'
  primaryConfig.gateway.operations.listen = null
  return primaryConfig
}

/**
 * The options startApp gets for `role`. `readConfig` reads the config file again for `chaingate reload`; the role's
 * adjustments are made to what it reads too.
 */
export function roleOptions(role: Role, config: Config, logger: Logger, readConfig?: () => Config): AppOptions {
  const reading = readConfig ? { readConfig: () => roleConfig(role, readConfig()) } : {}
  switch (role.kind) {
    case 'single':
      return { config, logger, parts: { dashboard: true, wallet: true, admin: true, alerts: true }, ...reading }
    case 'cluster-primary':
      return { config: roleConfig(role, config), logger, parts: { wallet: true }, ...reading, processRole: 'primary' }
    case 'cluster-worker':
      return {
        config,
        logger,
        parts: { dashboard: true, admin: true, alerts: true },
        embeddedUrls: role.embeddedUrls,
        ...reading,
        processRole: `worker ${role.number ?? '?'}`,
        ...(role.requestWriter ? { requestWriter: role.requestWriter } : {}),
      }
  }
}

export function startRole(role: Role, config: Config, logger: Logger, readConfig?: () => Config): Promise<RunningApp> {
  return startApp(roleOptions(role, config, logger, readConfig))
}
