/** /metrics for the request explorer's recorder: records waiting to be written, and records lost. */
import type { Registry } from 'prom-client'

export function registerRequestExplorerMetrics(
  registry: Registry,
  health: () => { bufferedRows: number; droppedCalls: number },
): void {
  const metric = (name: string, help: string, type: 'gauge' | 'counter', value: () => number) =>
    registry.registerMetric({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: [{ labels: {}, value: value() }] }),
    } as never)
  metric(
    'chaingate_request_log_buffered_rows',
    'Request explorer records held in memory, not yet written to the database',
    'gauge',
    () => health().bufferedRows,
  )
  metric(
    'chaingate_request_log_dropped_total',
    'Request explorer records lost: the buffer was full while the database was slow, or a write failed',
    'counter',
    () => health().droppedCalls,
  )
}
