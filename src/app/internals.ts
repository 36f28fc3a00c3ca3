/**
 * The parts of a running app that only tests and the bench read (the handle, RunningApp in src/app/build.ts, is what
 * production code gets): kept per app by startApp, read through `appInternals(app)` of src/app/app.test-support.ts.
 * Only build.ts (the writer) and `*.test-support.ts` files import this file, and production code imports no
 * `*.test-support.ts` file (test/architecture-rules.ts, TEST_ONLY).
 */
import type { AccountsRepository } from '../accounts/repository.ts'
import type { CostTable } from '../credits/costs.ts'
import type { LimitStore } from '../credits/limits/memory.ts'
import type { OpenedDatabase } from '../db/database.ts'
import type { GatewayServer } from '../gateway/http/server.ts'
import type { Gateway } from '../gateway/pipeline/execute.ts'
import type { InProcessClient } from '../gateway/pipeline/in-process-client.ts'
import type { Clock } from '../gateway/pipeline/types.ts'
import type { KeysRepository } from '../keys/repository.ts'
import type { KeySnapshot } from '../keys/snapshot.ts'
import type { Mailer } from '../mail/mailer.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { RedisConnection } from '../redis/connection.ts'
import type { UpstreamPool } from '../upstreams/pool/pool.ts'
import type { SubscriptionHub } from '../upstreams/subscriptions/hub.ts'
import type { UsageLedger } from '../usage/ledger.ts'
import type { RequestRecorder } from '../usage/requests/recorder.ts'
import type { UpstreamUsage } from '../usage/upstream-usage.ts'
import type { RunningAlerts } from './parts/alerts.ts'
import type { LiveConfig } from './reload/live-config.ts'

export interface AppInternals {
  /** The config snapshot a reload swaps whole, with its version. */
  live: LiveConfig
  clock: Clock
  database: OpenedDatabase
  accounts: AccountsRepository
  keys: KeysRepository
  keySnapshot: KeySnapshot
  limits: LimitStore
  /** The shared Redis (config redis.url), when configured: hot counters and log-in limits live there. */
  redis: RedisConnection | undefined
  ledger: UsageLedger
  /** Upstream usage per call: which node answered, attempts, cache and dedup hits (src/usage/upstream-usage.ts). */
  upstreamUsage: UpstreamUsage
  /** The request explorer's recorder (src/usage/requests); undefined when config requests.enabled is false. */
  requests: RequestRecorder | undefined
  gateway: Gateway
  costs: CostTable
  metrics: Metrics
  server: GatewayServer
  /** A client of this gateway inside the process, charged to `keyId` (the wallet's reads go through it). */
  inProcessClient(keyId: string): InProcessClient
  pools: Map<string, UpstreamPool>
  hubs: Map<string, SubscriptionHub>
  /** Usage alerts (src/alerts), when the role runs them (`parts.alerts`). */
  alerts: RunningAlerts | undefined
  /** Outgoing mail (config `mail`): SMTP, or files in `<dataDir>/mail/` with their links logged. */
  mailer: Mailer
}

// Keyed by the handle startApp returns (typed `object` here: this file does not import build.ts, which imports it).
const kept = new WeakMap<object, AppInternals>()

/** startApp's step: keeps the parts of `app` for the tests and the bench. */
export function keepInternals(app: object, parts: AppInternals): void {
  kept.set(app, parts)
}

/** The parts of `app` (started by startApp); for src/app/app.test-support.ts only. */
export function internalsOf(app: object): AppInternals {
  const parts = kept.get(app)
  if (!parts) throw new Error('not an app started by startApp')
  return parts
}
