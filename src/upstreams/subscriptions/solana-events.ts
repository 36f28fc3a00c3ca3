/**
 * Solana node notifications through the subscription hub (src/upstreams/subscriptions/hub.ts), in order per shared
 * subscription like the EVM's (./replay.ts), without a replay after a move to another node (a validator has no
 * history of notifications to ask for; docs/subscriptions.md, "Solana"):
 * - slot and root: a slot at or below the last one sent is dropped, so a client never sees a slot twice or going
 *   back, also across a move to a node that is behind;
 * - signature: the notification that ends it (the node drops the subscription after it:
 *   https://solana.com/docs/rpc/websocket/signaturesubscribe) ends the shared subscription here too, before it
 *   reaches the clients, so no unsubscribe is sent for it; a `receivedSignature` one is sent once;
 * - account, program, logs (and the unstable kinds): passed on as they come.
 */
import type { Conn } from './node-calls.ts'
import { isFinalNotification } from './protocol.ts'
import { createQueue, type Replay } from './replay.ts'
import type { HubOptions, Shared } from './hub.ts'

const slotOf = (kind: string, result: unknown): number | undefined => {
  const slot = kind === 'slot' ? (result as { slot?: unknown } | null | undefined)?.slot : result
  return Number.isSafeInteger(slot) ? (slot as number) : undefined
}

export function createSolanaEvents(
  network: string,
  opts: Pick<HubOptions, 'log' | 'fanoutChunk' | 'fanoutYield'>,
  shared: Map<string, Shared>,
): Replay {
  const { run, emit } = createQueue(network, opts)

  /** A one-shot subscription that ended at the node: forgotten here (its clients' last event is on its way). */
  const end = (conn: Conn, s: Shared) => {
    if (shared.get(s.key) === s) shared.delete(s.key)
    if (s.nodeId !== undefined && conn.byNodeId.get(s.nodeId) === s) conn.byNodeId.delete(s.nodeId)
    s.nodeId = undefined
    s.live = false
  }

  const deliver = (conn: Conn, s: Shared, result: unknown) => {
    if (s.kind === 'slot' || s.kind === 'root') {
      const slot = slotOf(s.kind, result)
      if (slot !== undefined) {
        if (s.lastSlot !== undefined && slot <= s.lastSlot) return
        s.lastSlot = slot
      }
    } else if (s.kind === 'signature') {
      if (isFinalNotification('solana', s.kind, result)) end(conn, s)
      else if (s.received) return
      else s.received = true
    }
    run(s, () => emit(s, result))
  }

  return { run, emit, deliver, sync: async () => undefined, markResume: () => undefined }
}
