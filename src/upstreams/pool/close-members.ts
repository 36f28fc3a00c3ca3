/**
 * Closing a pool's node connections (src/upstreams/pool/pool.ts, on shutdown and when `chaingate reload` replaces
 * the pool): every WebSocket at once; on each HTTP pool, requests in flight get a moment to finish.
 */
import type { Member } from './member.ts'

/** How long close() waits for requests in flight before dropping them. */
const CLOSE_GRACE_MS = 1000

export async function closeMembers(members: readonly Member[]): Promise<void> {
  for (const m of members) m.socket?.close()
  // In-flight requests get a moment to finish; a node that hangs must not hold the shutdown for its timeout.
  await Promise.all(
    members.map(async (m) => {
      if (m.pool === undefined) return
      const grace = setTimeout(() => void m.pool!.destroy().catch(() => undefined), CLOSE_GRACE_MS)
      await m.pool.close().catch(() => undefined)
      clearTimeout(grace)
    }),
  )
}
