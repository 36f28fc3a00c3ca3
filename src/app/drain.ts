/**
 * SIGTERM for one gateway process (alone, a `--workers` worker, or a replica behind a load balancer):
 *  1. /healthz answers 503 `draining` while calls are still served, for `gateway.drainDelayMs`, so a balancer
 *     polling it stops sending new calls here;
 *  2. the listener closes: no new connections, in-flight calls finish (each answer closes its keep-alive
 *     connection), WebSockets are closed with 1001; after `gateway.drainTimeoutMs` the rest are cut;
 *  3. everything else stops in reverse order, the usage ledger's last flush included (src/app/stop-list.ts).
 */
import type { RunningApp } from './build.ts'

/**
 * A worker replaced by a rolling restart keeps serving at least this long with `connection: close` on every
 * answer, so keep-alive clients reconnect (to the other workers) before its listener closes.
 */
export const ROLL_DRAIN_DELAY_MS = 1000

export async function drainThenStop(
  app: Pick<RunningApp, 'beginDrain' | 'stop' | 'config' | 'logger'>,
  signal: string,
  minDelayMs = 0,
): Promise<void> {
  const { drainTimeoutMs } = app.config.gateway
  const drainDelayMs = Math.max(app.config.gateway.drainDelayMs, minDelayMs)
  const began = Date.now()
  app.logger.info({ signal, drainDelayMs, drainTimeoutMs }, 'draining: /healthz answers 503, then the listener closes')
  app.beginDrain()
  if (drainDelayMs > 0) await new Promise((r) => setTimeout(r, drainDelayMs))
  await stopLogged(app, signal, began)
}

/** Stops everything, and says so in one line (an on-call's sign the process exits on its own). */
export async function stopLogged(app: Pick<RunningApp, 'stop' | 'logger'>, signal: string, began: number) {
  try {
    await app.stop()
  } catch (err) {
    app.logger.error({ signal, err }, 'shutdown failed')
    throw err
  }
  app.logger.info({ signal, ms: Date.now() - began }, 'shutdown complete')
}

/** Longest a drain may take before the process exits anyway (the ledger flush included). */
export function drainDeadlineMs(config: RunningApp['config']): number {
  return Math.max(config.gateway.drainDelayMs, ROLL_DRAIN_DELAY_MS) + config.gateway.drainTimeoutMs + 10_000
}
