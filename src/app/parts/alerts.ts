/**
 * Usage alerts as a part (src/app/build.ts; docs/alerts.md): the sweep that finds crossed thresholds every
 * `alerts.sweepMs` and the deliverer that sends their webhooks, both off the gateway's call path. Started after the
 * counting side (it reads the limit store) and stopped before the database; `alerts.enabled: false` runs neither.
 */
import { createDeliverer, type Deliverer } from '../../alerts/deliverer.ts'
import { createAlertLog, type AlertLog } from '../../alerts/log.ts'
import { createAlertSettingsRepository, type AlertSettingsRepository } from '../../alerts/settings.ts'
import { createSweep, type Sweep } from '../../alerts/sweep.ts'
import type { Config } from '../../config/schema.ts'
import type { LimitStore } from '../../credits/limits/memory.ts'
import type { OpenedDatabase } from '../../db/database.ts'
import type { Clock } from '../../gateway/pipeline/types.ts'
import type { Logger } from '../../observability/logger.ts'
import type { StopList } from '../stop-list.ts'

export interface RunningAlerts {
  settings: AlertSettingsRepository
  log: AlertLog
  sweep: Sweep
  deliverer: Deliverer
}

export function startAlerts(w: {
  config: Config
  database: OpenedDatabase
  limits: LimitStore
  clock: Clock
  logger: Logger
  stops: StopList
}): RunningAlerts {
  const { config, database, clock, logger, stops } = w
  const ac = config.alerts
  const settings = createAlertSettingsRepository(database.db, ac)
  const log = createAlertLog(database.db)
  const deliverer = createDeliverer({ log, settings, config: ac, clock, logger })
  const sweep = createSweep({
    db: database.db,
    settings,
    log,
    plans: config.plans,
    limits: w.limits,
    clock,
    onClaimed: () => deliverer.kick(),
    // The settings are read again every 5 sweeps (10 s by default); usage at every sweep.
    listMaxAgeMs: 5 * ac.sweepMs - 1,
  })
  if (!ac.enabled) return { settings, log, sweep, deliverer }
  let sweeping: Promise<unknown> | undefined
  let failing = false
  const tick = () => {
    if (sweeping) return
    sweeping = sweep
      .run()
      .then(
        () => (failing = false),
        (err) => {
          // Once per outage, not every sweep: the database being away is reported by /healthz too.
          if (!failing) logger.error({ err }, 'usage alerts: checking thresholds failed; will retry')
          failing = true
        },
      )
      .finally(() => (sweeping = undefined))
  }
  const timer = setInterval(tick, ac.sweepMs)
  timer.unref()
  tick()
  deliverer.start()
  // The log is bounded by age: hourly, every process (a delete that finds nothing costs one indexed query).
  let pruning: Promise<unknown> | undefined
  const prune = () => {
    pruning ??= log
      .prune(clock.now() - ac.retentionDays * 86_400_000)
      .catch((err) => logger.warn({ err }, 'usage alerts: pruning old alerts failed; will retry'))
      .finally(() => (pruning = undefined))
  }
  const pruneTimer = setInterval(prune, 3_600_000)
  pruneTimer.unref()
  prune()
  stops.add('usage alerts', async () => {
    clearInterval(timer)
    clearInterval(pruneTimer)
    await pruning
    await sweeping
    await deliverer.stop()
  })
  return { settings, log, sweep, deliverer }
}
