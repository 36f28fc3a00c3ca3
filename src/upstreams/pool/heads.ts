/**
 * A network's served tip: the highest latest head among its healthy nodes, and the highest finalized block any of
 * them reported. Nodes report what they saw (src/upstreams/pool/head-polling.ts polls them); this file only keeps the
 * numbers,
 * tells listeners about each new tip, and says whether it replaced a block the gateway had already served (reorg).
 *
 * The served tip never goes backwards: a node at the tip going down leaves the tip where it was (a client must not
 * see eth_blockNumber decrease), until a node reaches and passes it. The one exception is a chain replaced under the
 * gateway (every node's head moved below the tip: a devnet restarted without its state, a reorg past the tip;
 * src/upstreams/pool/head-polling.ts tells): `rebase` moves the tip down to the new chain, and listeners drop what
 * they kept of the old one (`rebased`).
 */

export interface HeadView {
  /** Served tip: the highest latest head among healthy upstreams; undefined until known. */
  latest(): number | undefined
  /** Highest finalized block known (from the 'finalized' tag); undefined when the chain does not report one. */
  finalized(): number | undefined
  /**
   * Each new served tip; reorg=true when a block at or below the previous tip changed hash; rebased=true when the
   * tip moved down to a replaced chain (every block and floor known of the old one is void). Returns unsubscribe.
   */
  onHead(listener: (head: HeadEvent) => void): () => void
}

export interface HeadEvent {
  number: number
  hash: string
  reorg: boolean
  rebased?: true
}

export interface BlockHead {
  number: number
  hash: string
  parentHash?: string | undefined
}

export interface HeadTracker extends HeadView {
  /** A node's latest block (from a poll or a newHeads event). */
  report(head: BlockHead): void
  reportFinalized(number: number): void
  /** The chain was replaced: the tip becomes `head` (lower than the tip), the old chain's tips are forgotten. */
  rebase(head: BlockHead): void
}

/** How many recent tips keep their hash, to recognise a reorg below the tip. */
const REMEMBERED_TIPS = 256

export function createHeadTracker(opts: { onListenerError?: (err: unknown) => void } = {}): HeadTracker {
  let tip: BlockHead | undefined
  let finalized: number | undefined
  /** Block number → hash of the tips served recently. */
  const served = new Map<number, string>()
  const listeners = new Set<(head: HeadEvent) => void>()

  const emit = (head: HeadEvent) => {
    for (const l of listeners) {
      try {
        l(head)
      } catch (err) {
        opts.onListenerError?.(err)
      }
    }
  }
  const remember = (h: BlockHead) => {
    served.set(h.number, h.hash)
    if (served.size > REMEMBERED_TIPS) served.delete(served.keys().next().value!)
  }

  return {
    latest: () => tip?.number,
    finalized: () => finalized,
    onHead(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    report(h) {
      if (tip !== undefined && h.number < tip.number) {
        // A node behind the tip: a reorg only if it reports another hash for a block already served as a tip.
        const known = served.get(h.number)
        if (known === undefined || known === h.hash) return
        // Reported by a node that is behind; the tip's own node will report the new branch as it grows. Treat the
        // block as replaced now (caches keyed by hash must drop it), without moving the tip backwards.
        served.set(h.number, h.hash)
        emit({ number: h.number, hash: h.hash, reorg: true })
        return
      }
      if (tip !== undefined && h.number === tip.number && h.hash === tip.hash) return
      // Same height, another hash; or the parent of a new tip is not the block served at that height.
      const parentKnown = h.parentHash === undefined ? undefined : served.get(h.number - 1)
      const reorg =
        tip !== undefined &&
        ((h.number === tip.number && h.hash !== tip.hash) ||
          (parentKnown !== undefined && parentKnown !== h.parentHash) ||
          (served.has(h.number) && served.get(h.number) !== h.hash))
      tip = h
      remember(h)
      emit({ number: h.number, hash: h.hash, reorg })
    },
    reportFinalized(n) {
      if (finalized === undefined || n > finalized) finalized = n
    },
    rebase(h) {
      tip = h
      finalized = undefined
      served.clear()
      remember(h)
      emit({ number: h.number, hash: h.hash, reorg: true, rebased: true })
    },
  }
}
