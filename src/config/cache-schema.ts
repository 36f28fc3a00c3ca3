/** The config's `cache` section (docs/caching.md): answers kept in process and calls shared while in flight. */
import { z } from 'zod'

export const CacheConfigSchema = z
  .object({
    /** Finality-aware answer cache; per network: `networks[].cache.enabled`. */
    enabled: z.boolean().default(true),
    /** Memory budget of the in-process cache (answer bytes plus keys), shared by every network. */
    maxBytes: z
      .number()
      .int()
      .min(0)
      .max(64 * 1024 * 1024 * 1024)
      .default(64 * 1024 * 1024),
    /** Largest single answer kept; larger ones are served but not cached. */
    maxItemBytes: z
      .number()
      .int()
      .min(1)
      .max(256 * 1024 * 1024)
      .default(1024 * 1024),
    /** Longest life of an entry for a block not yet finalized (a reorg drops it earlier). */
    unfinalizedTtlMs: z.number().int().min(100).max(3_600_000).default(60_000),
    /** eth_blockNumber answered for one served head at most this long (heads are polled; an idle gateway stops). */
    blockNumberTtlMs: z.number().int().min(0).max(60_000).default(1000),
    /** Identical reads in flight at the same time share one upstream call. */
    dedup: z.boolean().default(true),
  })
  .strict()
