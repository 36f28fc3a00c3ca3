/**
 * The request explorer's records from `--workers` workers on SQLite (docs/requests.md): each worker hands its batches
 * to the primary over node:cluster's IPC channel and the primary's one writer thread inserts them
 * (src/usage/requests/sqlite-worker.ts). A writer thread in every worker cost each ~9 MiB of RSS (a V8 isolate and a
 * SQLite connection of its own), and those threads only took turns at the file's one write lock anyway
 * (docs/benchmarks.md, "Memory, third pass"). The channel uses the `advanced` serialization (structured clone), so a
 * batch's typed arrays travel as bytes, not as JSON. On PostgreSQL each worker writes its own records.
 */
import type { RequestWriter } from '../../usage/requests/recorder.ts'
import type { ExplorerBatchMessage, ExplorerBatchWritten } from './protocol.ts'

/** The IPC end a worker has (`process`) or the primary has for a worker (cluster's Worker). */
export interface Channel {
  send(message: unknown, callback?: (err: Error | null) => void): boolean
  on(event: 'message', listener: (m: unknown) => void): unknown
  on(event: 'disconnect', listener: () => void): unknown
}

/** Longest wait for the primary's answer: a batch is thousands of rows at most, written in milliseconds. */
const ANSWER_TIMEOUT_MS = 30_000

const isType = (m: unknown, type: string): boolean =>
  typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type

/**
 * In a worker: a writer that relays each batch to the primary. A write fails (the recorder logs that its records
 * were dropped) when the channel is closed, the primary could not write, or it did not answer in time.
 */
export function createRelayedRequestWriter(channel: Channel, timeoutMs = ANSWER_TIMEOUT_MS): RequestWriter {
  const waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>()
  let nextId = 0
  const settle = (id: number, err?: Error) => {
    const w = waiting.get(id)
    if (!w) return
    waiting.delete(id)
    clearTimeout(w.timer)
    if (err) w.reject(err)
    else w.resolve()
  }
  channel.on('message', (m) => {
    if (!isType(m, 'explorer-batch-written')) return
    const { id, error } = m as ExplorerBatchWritten
    settle(
      id,
      error === undefined ? undefined : new Error(`the primary could not write the request explorer's batch: ${error}`),
    )
  })
  channel.on('disconnect', () => {
    for (const id of [...waiting.keys()]) settle(id, new Error('the primary is gone: request explorer records dropped'))
  })
  return {
    write(batch) {
      const id = nextId++
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            settle(
              id,
              new Error(`the primary did not write the request explorer's batch within ${timeoutMs / 1000} s`),
            ),
          timeoutMs,
        )
        timer.unref()
        waiting.set(id, { resolve, reject, timer })
        const message: ExplorerBatchMessage = { type: 'explorer-batch', id, batch }
        try {
          channel.send(message, (err) => {
            if (err) settle(id, err)
          })
        } catch (err) {
          settle(id, err as Error) // the channel closed (ERR_IPC_CHANNEL_CLOSED)
        }
      })
    },
  }
}

/**
 * In the primary: writes what `worker` relays with `writer` (the primary's own request explorer writer; undefined
 * when the explorer is off, then each batch is answered with an error) and answers each batch.
 */
export function answerRelayedExplorerBatches(worker: Channel, writer: () => RequestWriter | undefined): void {
  worker.on('message', (m) => {
    if (!isType(m, 'explorer-batch')) return
    const { id, batch } = m as ExplorerBatchMessage
    const answer = (error?: string) => {
      const reply: ExplorerBatchWritten =
        error === undefined ? { type: 'explorer-batch-written', id } : { type: 'explorer-batch-written', id, error }
      try {
        worker.send(reply, () => {}) // a worker gone meanwhile: nothing waits for the answer
      } catch {}
    }
    const w = writer()
    if (!w) return answer('the request explorer is off in the primary')
    Promise.resolve()
      .then(() => w.write(batch))
      .then(
        () => answer(),
        (err: unknown) => answer((err as Error)?.message ?? String(err)),
      )
  })
}
