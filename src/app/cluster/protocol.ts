/**
 * What the `--workers N` primary and its workers tell each other (node:cluster IPC,
 * https://nodejs.org/api/cluster.html).
 * The primary runs the embedded chains and the wallet once; each worker runs the gateway listener (all workers share
 * its port through node:cluster) with the dashboard, on the same database and Redis.
 */

/** Environment variable carrying the embedded chains' node URLs from the primary to each worker (JSON). */
export const EMBEDDED_URLS_ENV = 'CHAINGATE_CLUSTER_EMBEDDED_URLS'
/** The worker's number (1…N, a replacement keeps the number of the worker it replaces), for logs. */
export const WORKER_NUMBER_ENV = 'CHAINGATE_WORKER_NUMBER'

export type WorkerMessage = { type: 'ready'; url: string; operationsUrl?: string } | { type: 'failed'; message: string }

/** From the primary: drain now, serving at least `minDelayMs` first (rolling restart). */
export type PrimaryMessage = { type: 'drain'; minDelayMs: number }

export type EmbeddedUrls = Record<string, { url: string; wsUrl: string }>

export function isWorkerMessage(m: unknown): m is WorkerMessage {
  return (
    typeof m === 'object' &&
    m !== null &&
    ((m as { type?: unknown }).type === 'ready' || (m as { type?: unknown }).type === 'failed')
  )
}
