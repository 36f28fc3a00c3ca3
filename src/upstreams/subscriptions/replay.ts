/**
 * The subscription hub's events and gap replay (src/upstreams/subscriptions/hub.ts): each shared subscription's live
 * events and gap fills run in order, one task at a time, and after a move to another node what the clients missed
 * is sent before the new node's own events:
 * - newHeads: blocks missed meanwhile fetched with eth_getBlockByNumber (header fields only); heads already sent
 * dropped;
 * - logs: eth_getLogs over the blocks the old node may not have covered; logs already sent dropped.
 */
import { call, toBig, type Conn } from './node-calls.ts'
import { observe } from '../../observability/histogram.ts'
import { fanOut } from './fanout.ts'
import type { HubOptions, Shared } from './types.ts'

/** Longest gap of blocks replayed to newHeads clients after a switch; beyond it the oldest are skipped (logged). */
export const MAX_HEAD_FILL = 1024
/** Longest block range replayed to logs clients after a switch, and the size of each eth_getLogs. */
export const MAX_LOG_FILL_BLOCKS = 10_000
const LOG_FILL_CHUNK = 2000
/** Fields a block has and a newHeads event (a header) does not. */
const NOT_HEADER = ['transactions', 'uncles', 'size', 'totalDifficulty', 'withdrawals']

const hex = (n: bigint) => `0x${n.toString(16)}`

/** A family's handling of node events (this file: EVM; ./solana-events.ts: Solana). */
export interface Replay {
  /** Queues a task of `s` (an event's fan-out, a gap fill): one at a time, in order. */
  run(s: Shared, task: () => void | Promise<void>): void
  /**
   * Queues a node notification's task: the time from now (its arrival) to the end of its fan-out is observed in
   * `s.fanout` once, when it reached the clients (a duplicate dropped sends nothing and is not observed).
   */
  notify(s: Shared, task: () => void | Promise<void>): void
  /** To every client of `s`, in chunks (./fanout.ts). */
  emit(s: Shared, result: unknown): Promise<void>
  /** A node notification for `s` on `conn` (the connection it is subscribed on). */
  deliver(conn: Conn, s: Shared, result: unknown): void
  /** After a switch: what the clients missed, from the new node. */
  sync(conn: Conn, s: Shared): Promise<void>
  /** At a drop: where the next sync starts. */
  markResume(s: Shared): void
}

type QueueOptions = Pick<HubOptions, 'log' | 'fanoutChunk' | 'fanoutYield'>

/** Each shared subscription's tasks (live events, gap fills), one at a time and in order, for every family. */
export function createQueue(network: string, opts: QueueOptions): Pick<Replay, 'run' | 'notify' | 'emit'> {
  const run = (s: Shared, task: () => void | Promise<void>) => {
    s.tasks.push(task)
    if (!s.running) void drain(s)
  }
  const drain = async (s: Shared) => {
    s.running = true
    while (s.tasks.length > 0) {
      try {
        await s.tasks.shift()!()
      } catch (err) {
        // A fill that failed (the new node dropped too): the next connection's sync starts from what was sent.
        opts.log?.warn({ network, err: (err as Error).message }, 'subscription gap fill failed')
      }
    }
    s.running = false
  }

  const notify = (s: Shared, task: () => void | Promise<void>) => {
    const arrived = performance.now()
    run(s, async () => {
      const sent = s.sent
      await task()
      if (s.sent !== sent) observe(s.fanout, (performance.now() - arrived) / 1000)
    })
  }

  /** To every client, in chunks (./fanout.ts); the next event of `s` waits for it (its task awaits this). */
  const emit = (s: Shared, result: unknown) => {
    s.sent++
    return fanOut(s.listeners, result, opts.fanoutChunk, opts.fanoutYield)
  }
  return { run, notify, emit }
}

export function createReplay(network: string, opts: QueueOptions): Replay {
  /** Highest head the old node sent (any newHeads subscription), for where a logs gap starts. */
  let headSeen: bigint | undefined
  const { run, notify, emit } = createQueue(network, opts)

  const logKey = (log: { logIndex?: unknown; removed?: unknown }) =>
    `${String(log.logIndex)}:${log.removed === true ? 1 : 0}`

  const sendHead = (s: Shared, head: unknown, n: bigint) => {
    s.lastHead = n
    if (headSeen === undefined || n > headSeen) headSeen = n
    return emit(s, head)
  }

  const sendLog = (
    s: Shared,
    log: { blockNumber?: unknown; logIndex?: unknown; removed?: unknown },
    block: bigint | undefined,
  ) => {
    if (block !== undefined) {
      if (block !== s.lastLogBlock) {
        s.lastLogBlock = block
        s.lastLogKeys = new Set()
      }
      s.lastLogKeys.add(logKey(log))
    }
    return emit(s, log)
  }

  const onHead = async (conn: Conn, s: Shared, head: unknown) => {
    const n = toBig((head as { number?: unknown } | null)?.number)
    if (n === undefined) return emit(s, head)
    if (s.catchingUp && s.lastHead !== undefined) {
      if (n <= s.lastHead) return // the client has this block number already
      if (n > s.lastHead + 1n) await fillHeads(conn, s, s.lastHead + 1n, n - 1n)
      s.catchingUp = false
    }
    await sendHead(s, head, n)
  }

  const onLog = (s: Shared, log: { blockNumber?: unknown; logIndex?: unknown; removed?: unknown }) => {
    const block = toBig(log?.blockNumber)
    if (s.filledThrough !== undefined && block !== undefined) {
      if (block > s.filledThrough) {
        s.filledThrough = undefined
        s.filled = new Set()
      } else if (
        s.filled.has(`${block}:${logKey(log)}`) ||
        (block === s.lastLogBlock && s.lastLogKeys.has(logKey(log)))
      )
        return
      // A new node behind the old one sends blocks the client had logs after: already sent (a reorg's removed
      // logs excepted).
      else if (s.lastLogBlock !== undefined && block < s.lastLogBlock && log?.removed !== true) return
    }
    return sendLog(s, log, block)
  }

  /** Blocks `from`..`to` from `conn`, sent as heads in order; stops at the first the node does not have. */
  const fillHeads = async (conn: Conn, s: Shared, from: bigint, to: bigint) => {
    if (to - from + 1n > BigInt(MAX_HEAD_FILL)) {
      opts.log?.warn(
        { network, from: String(from), to: String(to) },
        `subscription gap longer than ${MAX_HEAD_FILL} blocks: only the newest are replayed`,
      )
      from = to - BigInt(MAX_HEAD_FILL) + 1n
    }
    for (let start = from; start <= to; start += 16n) {
      const end = start + 15n < to ? start + 15n : to
      const numbers: bigint[] = []
      for (let n = start; n <= end; n++) numbers.push(n)
      const blocks = await Promise.all(numbers.map((n) => call(conn, 'eth_getBlockByNumber', [hex(n), false])))
      for (let i = 0; i < blocks.length; i++) {
        const block = blocks[i] as Record<string, unknown> | null
        if (block === null || typeof block !== 'object') return
        const head = { ...block }
        for (const k of NOT_HEADER) delete head[k]
        await sendHead(s, head, numbers[i]!)
      }
    }
  }

  /** After a switch: what the client missed, from the new node. */
  const sync = async (conn: Conn, s: Shared) => {
    if (s.replay === 'heads') {
      if (s.lastHead === undefined) return
      s.catchingUp = true
      const head = toBig(await call(conn, 'eth_blockNumber', []))
      if (head !== undefined && head > s.lastHead) await fillHeads(conn, s, s.lastHead + 1n, head)
      return
    }
    if (s.replay !== 'logs' || s.resumeFrom === undefined) return
    const head = toBig(await call(conn, 'eth_blockNumber', []))
    if (head === undefined) return
    if (head < s.resumeFrom) {
      // Behind: its live logs up to where the old node was are checked against what was sent.
      s.filledThrough = s.resumeFrom
      return
    }
    let from = s.resumeFrom
    if (head - from + 1n > BigInt(MAX_LOG_FILL_BLOCKS)) {
      opts.log?.warn(
        { network, from: String(from), to: String(head) },
        `subscription gap longer than ${MAX_LOG_FILL_BLOCKS} blocks: logs replayed for the newest only`,
      )
      from = head - BigInt(MAX_LOG_FILL_BLOCKS) + 1n
    }
    const filter = { ...((s.params[1] ?? {}) as Record<string, unknown>) }
    delete filter.fromBlock
    delete filter.toBlock
    delete filter.blockHash
    s.filledThrough = head
    for (let start = from; start <= head; start += BigInt(LOG_FILL_CHUNK)) {
      const end = start + BigInt(LOG_FILL_CHUNK - 1) < head ? start + BigInt(LOG_FILL_CHUNK - 1) : head
      const logs = (await call(conn, 'eth_getLogs', [{ ...filter, fromBlock: hex(start), toBlock: hex(end) }])) as
        | { blockNumber?: unknown; logIndex?: unknown }[]
        | null
      for (const log of logs ?? []) {
        const block = toBig(log?.blockNumber)
        if (block === undefined) continue
        const key = logKey(log)
        if (block === s.lastLogBlock && s.lastLogKeys.has(key)) continue
        s.filled.add(`${block}:${key}`)
        await sendLog(s, log, block)
      }
      s.resumeFrom = end + 1n
    }
  }

  /** logs, at a drop: the first block the old node may not have covered (where the next sync starts). */
  const markResume = (s: Shared) => {
    let from = s.firstBlock
    if (s.lastLogBlock !== undefined && (from === undefined || s.lastLogBlock > from)) from = s.lastLogBlock
    // The old node's logs for its last head may not have arrived yet: that block is checked again.
    if (headSeen !== undefined && headSeen > 0n && (from === undefined || headSeen - 1n > from)) from = headSeen - 1n
    if (s.resumeFrom === undefined || (from !== undefined && from > s.resumeFrom)) s.resumeFrom = from
  }

  const deliver = (conn: Conn, s: Shared, result: unknown) => {
    if (s.replay === 'heads') notify(s, () => onHead(conn, s, result))
    else if (s.replay === 'logs') notify(s, () => onLog(s, result as never))
    else notify(s, () => emit(s, result))
  }

  return { run, notify, emit, deliver, sync, markResume }
}
