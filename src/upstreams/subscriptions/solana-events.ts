/**
 * Solana node notifications through the subscription hub (src/upstreams/subscriptions/hub.ts), in order per shared
 * subscription like the EVM's (./replay.ts), without a replay after a move to another node (a validator has no
 * history of notifications to ask for; docs/subscriptions.md, "Solana"):
 * - slot and root: a slot at or below the last one sent is dropped, so a client never sees a slot twice or going
 *   back, also across a move to a node that is behind;
 * - signature: the notification that ends it (the node drops the subscription after it:
 *   https://solana.com/docs/rpc/websocket/signaturesubscribe) ends the shared subscription here too, before it
 *   reaches the clients, so no unsubscribe is sent for it; a `receivedSignature` one is sent once;
 * - account, program, logs: passed on as they come; after a move, what the new node sends for a slot the clients
 *   already had notifications of is dropped when it was sent already (the same account, the same program account,
 *   the same transaction's logs), until it passes that slot: both nodes are subscribed during a planned move, and a
 *   node behind the old one notifies again what the old one did. Changes made while no node was subscribed (the
 *   moment of a failover) are not replayed: a validator notifies on change only and keeps no history to ask for;
 * - the unstable kinds (block, vote, slotsUpdates): passed on as they come.
 */
import type { SubscriptionKindName } from '../../methods/catalog.ts'
import type { Conn } from './node-calls.ts'
import { isFinalNotification } from './protocol.ts'
import { createQueue, type Replay } from './replay.ts'
import type { HubOptions, Shared } from './types.ts'

/** The context slot of an account, program or logs notification (`{ context: { slot }, value }`). */
const contextSlot = (result: unknown): number | undefined => {
  const slot = (result as { context?: { slot?: unknown } } | null | undefined)?.context?.slot
  return Number.isSafeInteger(slot) ? (slot as number) : undefined
}

/** What one notification of a slot is about: a program's account, a transaction's logs (an account: itself). */
const itemOf = (kind: SubscriptionKindName, result: unknown): string => {
  const value = (result as { value?: { pubkey?: unknown; signature?: unknown } } | null | undefined)?.value
  return String((kind === 'program' ? value?.pubkey : kind === 'logs' ? value?.signature : '') ?? '')
}

const CHANGES = new Set(['account', 'program', 'logs'])

const slotOf = (kind: SubscriptionKindName, result: unknown): number | undefined => {
  const slot = kind === 'slot' ? (result as { slot?: unknown } | null | undefined)?.slot : result
  return Number.isSafeInteger(slot) ? (slot as number) : undefined
}

export function createSolanaEvents(
  network: string,
  opts: Pick<HubOptions, 'log' | 'fanoutChunk' | 'fanoutYield'>,
  shared: Map<string, Shared>,
): Replay {
  const { run, notify, emit } = createQueue(network, opts)

  /** A one-shot subscription that ended at the node: forgotten here (its clients' last event is on its way). */
  const end = (conn: Conn, s: Shared) => {
    if (shared.get(s.key) === s) shared.delete(s.key)
    if (s.nodeId !== undefined && conn.byNodeId.get(s.nodeId) === s) conn.byNodeId.delete(s.nodeId)
    s.nodeId = undefined
    s.live = false
  }

  /** An account, program or logs notification, in its turn (after a move's `sync`, queued before it). */
  const onChange = (s: Shared, result: unknown) => {
    const slot = contextSlot(result)
    if (slot !== undefined) {
      const item = itemOf(s.kind, result)
      if (s.catchingUp && s.lastSlot !== undefined) {
        if (slot < s.lastSlot || (slot === s.lastSlot && s.slotKeys.has(item))) return undefined
        if (slot > s.lastSlot) s.catchingUp = false
      }
      if (slot !== s.lastSlot) {
        s.lastSlot = slot
        s.slotKeys = new Set()
      }
      s.slotKeys.add(item)
    }
    return emit(s, result)
  }

  const deliver = (conn: Conn, s: Shared, result: unknown) => {
    if (CHANGES.has(s.kind)) return notify(s, () => onChange(s, result))
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
    notify(s, () => emit(s, result))
  }

  // After a move: nothing to replay; the new node's notifications of slots already sent are checked (onChange).
  const sync = async (_conn: Conn, s: Shared) => {
    if (CHANGES.has(s.kind) && s.lastSlot !== undefined) s.catchingUp = true
  }

  return { run, notify, emit, deliver, sync, markResume: () => undefined }
}
