/**
 * Delivery: sends the alerts that are due (new ones at once, retries when their backoff ends), from the database,
 * so deliveries pending at a restart or a crash are resumed by whichever process runs next. Each attempt is locked
 * in the database first (src/alerts/log.ts), so with several processes one alert is sent by one of them at a time.
 */
import type { AlertsConfig } from '../config/alerts-schema.ts'
import { createWebhookDispatcher } from './egress.ts'
import type { AlertLog, AlertRecord, AttemptOutcome } from './log.ts'
import { storedUrlProblem, type AlertSettingsRepository } from './settings.ts'
import { backoffMs, sendWebhook, type AttemptResult } from './webhook.ts'

export interface DelivererDeps {
  log: AlertLog
  settings: AlertSettingsRepository
  config: Pick<
    AlertsConfig,
    | 'timeoutMs'
    | 'maxAttempts'
    | 'backoffBaseMs'
    | 'backoffMaxMs'
    | 'deliveryPollMs'
    | 'allowedHosts'
    | 'allowPrivateTargets'
  >
  clock: { now(): number }
  logger: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void }
}

export interface Deliverer {
  /** Looks for due deliveries now (a new alert was claimed). */
  kick(): void
  /** One pass over the due deliveries (tests). */
  runOnce(): Promise<void>
  start(): void
  /** Stops polling and waits for the attempts in flight (each bounded by `timeoutMs`). */
  stop(): Promise<void>
}

const BATCH = 20
/** Beyond the timeout, how long a lock outlives an attempt (writing the result). */
const LOCK_SLACK_MS = 5_000
/** What the account reads when the current rules refuse its stored URL (docs/alerts.md, "SSRF"). */
export const HOST_NOT_ALLOWED = 'host no longer allowed'
const final = (error: string): AttemptResult => ({ status: null, error, delivered: false, retry: false, durationMs: 0 })

export function createDeliverer(deps: DelivererDeps): Deliverer {
  const { log, settings, config, clock, logger } = deps
  let timer: NodeJS.Timeout | undefined
  const retryTimers = new Set<NodeJS.Timeout>()
  let running: Promise<void> | undefined
  let again = false
  let stopped = false
  const dispatcher = createWebhookDispatcher({
    allowPrivateTargets: config.allowPrivateTargets,
    connectTimeoutMs: config.timeoutMs,
  })
  let closing: Promise<void> | undefined

  const send = async (a: AlertRecord, now: number): Promise<AttemptResult> => {
    const target = await settings.target(a.accountId)
    if (!target) return final('the account has no webhook any more')
    // The URL was checked when it was saved, under the rules of then: the operator may have narrowed them since.
    const problem = storedUrlProblem(target.url, config)
    if (problem) {
      logger.warn({ alertId: a.id, accountId: a.accountId, problem }, 'alert webhook refused: host no longer allowed')
      return final(HOST_NOT_ALLOWED)
    }
    const result = await sendWebhook(target.url, target.secret, a.id, a.payload, {
      timeoutMs: config.timeoutMs,
      nowMs: now,
      dispatcher,
    })
    if (result.detail)
      logger.warn(
        { alertId: a.id, accountId: a.accountId, host: new URL(target.url).host, error: result.detail },
        'alert webhook: connection failed',
      )
    return result
  }

  const attempt = async (a: AlertRecord): Promise<void> => {
    const now = clock.now()
    if (!(await log.lock(a.id, now, now + config.timeoutMs + LOCK_SLACK_MS))) return
    const n = a.attempts + 1
    const result = await send(a, now)
    const last = n >= config.maxAttempts
    const wait = result.retry && !last ? backoffMs(n, backoffOpts(), result.retryAfterMs) : undefined
    const outcome: AttemptOutcome = {
      attempt: { attempt: n, at: now, status: result.status, error: result.error, durationMs: result.durationMs },
      status: result.delivered ? 'delivered' : wait !== undefined ? 'pending' : 'failed',
      nextAttemptAt: wait !== undefined ? clock.now() + wait : null,
    }
    await log.record(a.id, outcome)
    if (outcome.status === 'failed')
      logger.warn(
        { alertId: a.id, accountId: a.accountId, attempts: n, lastError: result.error },
        'alert webhook failed for good',
      )
    if (wait !== undefined && !stopped) {
      // Come back exactly when the backoff ends, not at the next poll.
      const t = setTimeout(() => {
        retryTimers.delete(t)
        deliverer.kick()
      }, wait)
      t.unref()
      retryTimers.add(t)
    }
  }
  const backoffOpts = () => ({ baseMs: config.backoffBaseMs, maxMs: config.backoffMaxMs })

  const pass = async () => {
    const due = await log.due(clock.now(), BATCH)
    await Promise.all(due.map((a) => attempt(a).catch((err) => logger.error({ err, alertId: a.id }, 'alert delivery'))))
    return due.length
  }

  const deliverer: Deliverer = {
    kick() {
      if (stopped) return
      if (running) {
        again = true
        return
      }
      running = (async () => {
        try {
          do {
            again = false
            // A full batch may mean more are due.
            if ((await pass()) === BATCH) again = true
          } while (again && !stopped)
        } catch (err) {
          logger.error({ err }, 'reading due alert deliveries failed; will retry')
        } finally {
          running = undefined
        }
      })()
    },
    async runOnce() {
      await pass()
    },
    start() {
      deliverer.kick()
      timer = setInterval(() => deliverer.kick(), config.deliveryPollMs)
      timer.unref()
    },
    async stop() {
      stopped = true
      if (timer) clearInterval(timer)
      for (const t of retryTimers) clearTimeout(t)
      retryTimers.clear()
      await running
      // Once: stop may be called again (a second close would throw).
      closing ??= dispatcher.close()
      await closing
    },
  }
  return deliverer
}
