/**
 * Feeds a pool's head tracker (src/upstreams/pool/heads.ts): each node's latest (and finalized) block is polled, or
 * pushed by newHeads over WebSocket, while calls flow — never when the gateway is idle.
 */
import type { BlockHead } from './heads.ts'
import { post, type Member } from './member.ts'
import type { PoolState } from './state.ts'
import { createWsRpcConnection, type WsRpcConnection } from '../../jsonrpc/ws-connection.ts'

/** The finalized head moves slowly: asked on every FINALIZED_EVERY-th head poll only. */
const FINALIZED_EVERY = 5

export interface HeadPolling {
  /** A call after an idle spell: poll now and resume the timer's polling. */
  wake(): void
  /** The first heads (after the start-up chain id check), so the served tip is known before the first call. */
  start(): Promise<void>
  close(): void
}

/** `wsUrls[i]`: the newHeads WebSocket of `pool.members[i]`, if it has one. */
export function createHeadPolling(pool: PoolState, wsUrls: (string | undefined)[]): HeadPolling {
  const { members, heads, network, settings, policy, rules, log } = pool
  /** The pool's call count when last seen, and when it last moved. */
  let callsSeen = 0
  let activeAt = Date.now()
  let polls = 0

  /** A node's head moved backwards since a node in service was last at the tip (a chain replaced?). */
  let wentBack = false
  // Only a node in service sets the served tip; a node cooling down may be stale or on its own fork.
  const inService = (m: Member, now: number) => m.usable && m.downUntil <= now && !m.breaker.isOpen
  /** A node's latest head, from a poll or a push; a head that moved backwards is logged, and may rebase the tip. */
  const noteHead = (m: Member, head: BlockHead) => {
    const before = m.head
    m.head = head.number
    const now = Date.now()
    const serving = inService(m, now)
    if (serving) heads.report(head)
    const tip = heads.latest()
    if (before !== undefined && head.number < before) {
      wentBack = true
      log?.warn({ network, upstream: m.label, from: before, to: head.number, tip }, 'node head moved backwards')
    }
    // A node went back, and now every node in service is below the served tip: the chain was replaced (a devnet
    // restarted without its state, a reorg past the tip). Left alone, the tip would wait for the new chain to pass
    // the old one: nodes "lagging", clients told a block that does not exist. The tip follows the new chain (higher
    // nodes lift it). Without a node going back (the node at the tip went down), the tip stays.
    if (tip === undefined || !serving) return
    if (head.number >= tip) {
      wentBack = false
      return
    }
    if (!wentBack || members.some((o) => inService(o, now) && o.head !== undefined && o.head >= tip)) return
    wentBack = false
    log?.warn(
      { network, upstream: m.label, from: tip, to: head.number },
      "network head reset: every node's head moved below the served tip (the chain was replaced)",
    )
    heads.rebase(head)
  }
  const pollHead = async (m: Member, withFinalized: boolean): Promise<void> => {
    if (m.headPolling) return
    m.headPolling = true
    try {
      const answer = await post(m, rules.headProbe(withFinalized), Math.min(m.timeoutMs, 5000), settings)
      const parsed = JSON.parse(answer.body.toString()) as unknown
      const [latest, finalized] = Array.isArray(parsed)
        ? [parsed.find((a) => a?.id === 1), parsed.find((a) => a?.id === 2)]
        : [parsed, undefined]
      const head = rules.headOf(latest)
      if (head !== undefined) noteHead(m, head)
      const fin = finalized === undefined ? undefined : rules.finalizedOf(finalized)
      if (fin !== undefined) {
        m.finalized = fin
        heads.reportFinalized(fin)
      }
    } catch {
      // The failure already counts against the node (member.ts); its head stays what it was.
    } finally {
      m.headPolling = false
    }
  }
  /**
   * newHeads over WebSocket for nodes that have one (an embedded chain; a node with a `wsUrl` or a ws(s) `url`):
   * heads arrive as blocks are made, and the latest-block poll is skipped for them while subscribed. Only while
   * calls flow, like polling: an idle gateway closes these subscriptions.
   */
  interface WsHeads {
    url: string
    conn: WsRpcConnection | undefined
    state: 'off' | 'subscribing' | 'on'
  }
  const wsHeads = new Map<Member, WsHeads>()
  wsUrls.forEach((url, i) => {
    if (url !== undefined) wsHeads.set(members[i]!, { url, conn: undefined, state: 'off' })
  })
  const onNewHead = (m: Member, message: { params?: { result?: unknown } }) => {
    const head = rules.headOfNotification(message.params?.result)
    if (head !== undefined) noteHead(m, head)
  }
  const subscribeHeads = (m: Member, w: WsHeads) => {
    w.state = 'subscribing'
    const conn = createWsRpcConnection(w.url, {
      network,
      timeoutMs: Math.min(m.timeoutMs, 5000),
      onNotification: (msg) => {
        if (w.conn === conn) onNewHead(m, msg as { params?: { result?: unknown } })
      },
      onClosed: () => {
        if (w.conn !== conn) return
        w.conn = undefined
        w.state = 'off' // polled again until the next tick subscribes anew
      },
    })
    w.conn = conn
    conn.request({ jsonrpc: '2.0', id: 1, ...rules.headSubscribe }).then(
      (answer) => {
        if (w.conn !== conn) return
        // no newHeads here: keep polling
        if ((answer as { result?: unknown }).result === undefined) return unsubscribeHeads(w)
        w.state = 'on'
      },
      () => {
        if (w.conn === conn) unsubscribeHeads(w)
      },
    )
  }
  const unsubscribeHeads = (w: WsHeads) => {
    const conn = w.conn
    w.conn = undefined
    w.state = 'off'
    conn?.close()
  }
  const pollHeads = () => {
    if (pool.closed) return
    const now = Date.now()
    if (pool.calls !== callsSeen) {
      callsSeen = pool.calls
      activeAt = now
    } else if (now - activeAt >= policy.headIdleMs) {
      pool.headsIdle = true // an idle gateway asks its (possibly paid) nodes nothing; the next call wakes this up
      for (const w of wsHeads.values()) unsubscribeHeads(w)
      return
    }
    pool.headsIdle = false
    const withFinalized = polls++ % FINALIZED_EVERY === 0
    for (const m of members) {
      if (m.chain !== 'confirmed' || m.refusal !== undefined) continue
      const w = wsHeads.get(m)
      if (w !== undefined && w.state === 'off') subscribeHeads(m, w)
      if (w?.state !== 'on' || withFinalized) void pollHead(m, withFinalized)
    }
  }
  const wakeHeads = () => {
    pool.headsIdle = false
    activeAt = Date.now()
    pollHeads()
  }
  const headTimer = setInterval(pollHeads, policy.headPollMs)
  headTimer.unref()

  return {
    wake: wakeHeads,
    async start() {
      await Promise.all(members.filter((m) => m.chain === 'confirmed').map((m) => pollHead(m, true)))
      pool.headsIdle = false
      activeAt = Date.now()
      for (const [m, w] of wsHeads) if (m.chain === 'confirmed' && w.state === 'off') subscribeHeads(m, w)
    },
    close() {
      clearInterval(headTimer)
      for (const w of wsHeads.values()) unsubscribeHeads(w)
    },
  }
}
