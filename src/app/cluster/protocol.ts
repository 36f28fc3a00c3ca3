/**
 * What the `--workers N` primary and its workers tell each other (node:cluster IPC and the forked worker's
 * environment, https://nodejs.org/api/cluster.html).
 * The primary runs the embedded chains and the wallet once; each worker runs the gateway listener (all workers share
 * its port through node:cluster) with the dashboard, on the same database and Redis.
 */

/** Environment variable carrying the embedded chains' node URLs from the primary to each worker (JSON). */
export const EMBEDDED_URLS_ENV = 'CHAINGATE_CLUSTER_EMBEDDED_URLS'
/** The worker's number (1…N, a replacement keeps the number of the worker it replaces), for logs. */
export const WORKER_NUMBER_ENV = 'CHAINGATE_WORKER_NUMBER'

import type { ReloadAck } from '../../redis/reload-channel.ts'
import type { RequestBatch } from '../../usage/requests/batch.ts'

/** From a worker: it listens (on the shared port), or it could not start; or how a reload went. */
export type WorkerMessage =
  | { type: 'ready'; url: string; operationsUrl?: string }
  | { type: 'failed'; message: string }
  | { type: 'reloaded'; ack: ReloadAck }

/**
 * From the primary: drain now, serving at least `minDelayMs` first (rolling restart); or reload the config (SIGHUP
 * to the primary, `chaingate reload` without Redis).
 */
export type PrimaryMessage = { type: 'drain'; minDelayMs: number } | { type: 'reload'; id: string }

/** Worker → primary, on SQLite: write this request explorer batch, answer with `id` (./request-explorer-relay.ts). */
export interface ExplorerBatchMessage {
  type: 'explorer-batch'
  id: number
  batch: RequestBatch
}
/** Primary → worker: batch `id` was written, or why not. */
export interface ExplorerBatchWritten {
  type: 'explorer-batch-written'
  id: number
  error?: string
}

export type EmbeddedUrls = Record<string, { url: string; wsUrl: string }>

/** The environment worker `number` is forked with. */
export function workerEnv(number: number, embedded: EmbeddedUrls): Record<string, string> {
  return { [EMBEDDED_URLS_ENV]: JSON.stringify(embedded), [WORKER_NUMBER_ENV]: String(number) }
}

/** What the primary passed in `workerEnv`, read back in the worker (`?` for a number it did not pass). */
export function readWorkerEnv(env: Record<string, string | undefined>): {
  number: string
  embeddedUrls: Map<string, { url: string; wsUrl: string }>
} {
  const embedded = JSON.parse(env[EMBEDDED_URLS_ENV] ?? '{}') as EmbeddedUrls
  return { number: env[WORKER_NUMBER_ENV] ?? '?', embeddedUrls: new Map(Object.entries(embedded)) }
}

export function isWorkerMessage(m: unknown): m is WorkerMessage {
  const type = typeof m === 'object' && m !== null ? (m as { type?: unknown }).type : undefined
  return type === 'ready' || type === 'failed' || type === 'reloaded'
}

export function isPrimaryMessage(m: unknown): m is PrimaryMessage {
  const type = typeof m === 'object' && m !== null ? (m as { type?: unknown }).type : undefined
  return type === 'drain' || type === 'reload'
}
