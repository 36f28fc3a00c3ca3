/** The config's `requests` section: the request explorer's per-call records (docs/requests.md). */
import { z } from 'zod'

export const RequestsConfigSchema = z
  .object({
    /** Record every call (key, method, status, latency, credits, who answered); false: nothing is recorded. */
    enabled: z.boolean().default(true),
    /** Records older than this are deleted. */
    retentionHours: z
      .number()
      .int()
      .min(1)
      .max(24 * 90)
      .default(24),
    /** At most this many records per key (its newest ones); older ones are deleted. */
    maxRowsPerKey: z.number().int().min(10).max(10_000_000).default(10_000),
    /**
     * Records held in memory between writes (every gateway.usageFlushMs); when the database is slow and this is
     * full, the oldest are dropped and counted (chaingate_request_log_dropped_total), and calls never wait.
     */
    bufferRows: z.number().int().min(100).max(10_000_000).default(50_000),
    /** How often old records are deleted. */
    pruneEveryMs: z.number().int().min(1000).max(3_600_000).default(60_000),
    /** Rows one prune deletes at most (each process prunes; a prune that hits it runs again a second later). */
    pruneMaxRows: z.number().int().min(100).max(10_000_000).default(50_000),
  })
  .strict()
