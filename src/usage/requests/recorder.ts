/**
 * The request explorer's recorder (docs/requests.md): one record per call, taken where the pipeline settles it,
 * written to `request_log` off the hot path. A call costs a few array writes: the records live in a ring of
 * preallocated columns (no object per call, nothing serialized), and a timer hands them to the writer every
 * `flushMs`. The ring starts small and doubles while it is full, up to `bufferRows` (a flush interval's records at
 * a busy worker's rate fit the first size: the whole 50,000-row default, ~4 MiB, is only for a slow database). While
 * a write is slow or failing the ring keeps filling; once at `bufferRows` the oldest record is overwritten and
 * counted (`droppedCalls`), so calls never wait for the database.
 */
import { capLabel } from '../../methods/labels.ts'
import { createInterner, NUMBERS, type RequestBatch, STRINGS } from './batch.ts'

/** What a call's record is read from: the pipeline's CallContext has this shape. */
export interface RequestSource {
  entry: { readonly id: string; readonly accountId: string }
  network: { readonly name: string }
  /** The Origin header, when the client sent one. */
  origin?: string | undefined
  /** HTTP: the client's socket (its address). */
  client?: { readonly remoteAddress?: string | undefined } | undefined
}

/** Who answered: a node's answer (its label; the cache or a shared call in flight by `source`). */
export interface ServedBy {
  readonly upstream: string
  readonly source?: 'cache' | 'dedup' | undefined
}

export interface RequestRow {
  time: number
  keyId: string
  accountId: string
  network: string
  method: string
  /** `ok`, `rpc:<JSON-RPC error code>`, `http:<status>` (refused or no node answered), `http:undelivered`. */
  status: string
  latencyMs: number
  credits: number
  /** `cache`, `dedup` or the answering upstream's label; null: the gateway answered itself, or no node did. */
  served: string | null
  /** The Origin header when sent, else the client's IP address; null when neither is known. */
  client: string | null
}

/** Writes one batch (./batch.ts); throws (or rejects) when it could not. */
export interface RequestWriter {
  write(batch: RequestBatch): void | Promise<void>
  /** Releases what the writer holds (a thread), after the last write; called by `stop`. */
  close?(): Promise<void>
}

export interface RequestRecorder {
  /** One settled call. `status`: undefined for a success; `startedMs`: when it was admitted (clock ms). */
  push(
    ctx: RequestSource,
    method: string,
    status: string | undefined,
    credits: number,
    served: ServedBy | undefined,
    startedMs: number,
  ): void
  /** A call refused before it ran, where only the key is known (key security, bad input). */
  refused(entry: RequestSource['entry'], network: string, method: string, status: string, credits: number): void
  /** Keys with records written since the last call (the per-key cap is checked for these). */
  takeWrittenKeys(): Set<string>
  flush(): Promise<void>
  start(): void
  stop(): Promise<void>
  /** Records waiting in memory, and records lost (buffer full while the database was slow, or a failed write). */
  health(): { bufferedRows: number; droppedCalls: number }
  /** Where batches go: the `--workers` primary writes its workers' batches with it too (src/app/cluster). */
  readonly writer: RequestWriter
}

const DONE: Promise<void> = Promise.resolve()
/** Client-chosen strings are capped (labels) before they reach the database: method, status, client. */
const CAPPED = [false, false, false, true, true, false, true]
/** The ring's first size (rows); it doubles while full, up to `bufferRows`. */
const INITIAL_ROWS = 4096
/** While writes keep failing, `onError` hears of it at most this often. */
const ERROR_REPORT_MS = 30_000

export function createRequestRecorder(
  writer: RequestWriter,
  opts: {
    flushMs: number
    bufferRows: number
    clock: () => number
    onError: (err: unknown) => void
    /** The ring's first size (tests); INITIAL_ROWS by default. */
    initialRows?: number
  },
): RequestRecorder {
  const cap = opts.bufferRows
  const clock = opts.clock
  // Columns of the ring (`size` rows): index `head` is written next; the `count` before it are waiting.
  let size = Math.min(cap, opts.initialRows ?? INITIAL_ROWS)
  let times = new Float64Array(size)
  let latencies = new Float64Array(size)
  let credits = new Float64Array(size)
  let keyIds: string[] = new Array<string>(size).fill('')
  let accountIds: string[] = new Array<string>(size).fill('')
  let networks: string[] = new Array<string>(size).fill('')
  let methods: string[] = new Array<string>(size).fill('')
  let statuses: string[] = new Array<string>(size).fill('')
  let serveds: (string | null)[] = new Array<string | null>(size).fill(null)
  let clients: (string | null)[] = new Array<string | null>(size).fill(null)
  let head = 0
  let count = 0
  let dropped = 0
  let written = new Set<string>()
  let inFlight: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  let lastReportMs: number | undefined

  /** Doubles the ring (at most to `cap`), the waiting records moved to its start, oldest first. */
  const grow = () => {
    const next = Math.min(cap, size * 2)
    const from = (head - count + size) % size
    const moved = <C extends { [i: number]: unknown }>(old: C, fresh: C): C => {
      for (let n = 0, i = from; n < count; n++) {
        fresh[n] = old[i]
        if (++i === size) i = 0
      }
      return fresh
    }
    times = moved(times, new Float64Array(next))
    latencies = moved(latencies, new Float64Array(next))
    credits = moved(credits, new Float64Array(next))
    keyIds = moved(keyIds, new Array<string>(next).fill(''))
    accountIds = moved(accountIds, new Array<string>(next).fill(''))
    networks = moved(networks, new Array<string>(next).fill(''))
    methods = moved(methods, new Array<string>(next).fill(''))
    statuses = moved(statuses, new Array<string>(next).fill(''))
    serveds = moved(serveds, new Array<string | null>(next).fill(null))
    clients = moved(clients, new Array<string | null>(next).fill(null))
    head = count
    size = next
  }

  const add = (
    keyId: string,
    accountId: string,
    network: string,
    method: string,
    status: string,
    latency: number,
    charged: number,
    served: string | null,
    client: string | null,
    now: number,
  ) => {
    if (count === size && size < cap) grow()
    const i = head
    times[i] = now
    latencies[i] = latency
    credits[i] = charged
    keyIds[i] = keyId
    accountIds[i] = accountId
    networks[i] = network
    methods[i] = method
    statuses[i] = status
    serveds[i] = served
    clients[i] = client
    if (++head === size) head = 0
    if (count < size) count++
    else dropped++ // the oldest waiting record was just overwritten
  }

  /** The waiting records as one batch (oldest first), without an object per record; the ring is empty after. */
  const take = (): RequestBatch => {
    const interner = createInterner(CAPPED, capLabel)
    const refs = new Uint32Array(count * STRINGS)
    const nums = new Float64Array(count * NUMBERS)
    let i = (head - count + size) % size
    let lastKey: string | undefined
    for (let n = 0, a = 0, x = 0; n < count; n++) {
      const keyId = keyIds[i]!
      if (keyId !== lastKey) written.add((lastKey = keyId))
      refs[a++] = interner.ref(0, keyId)
      refs[a++] = interner.ref(1, accountIds[i]!)
      refs[a++] = interner.ref(2, networks[i]!)
      refs[a++] = interner.ref(3, methods[i]!)
      refs[a++] = interner.ref(4, statuses[i]!)
      refs[a++] = interner.ref(5, serveds[i]!)
      refs[a++] = interner.ref(6, clients[i]!)
      nums[x++] = times[i]!
      nums[x++] = Math.max(0, Math.round(latencies[i]!))
      nums[x++] = credits[i]!
      // Drop the reference, so a closed socket's address string is not held.
      clients[i] = null
      if (++i === size) i = 0
    }
    const batch = { count, strings: interner.strings, refs, nums }
    count = 0
    return batch
  }

  const failed = (lost: number, err: unknown) => {
    // A request log is not worth holding a failing database's backlog: counted as lost.
    dropped += lost
    const now = Date.now()
    if (lastReportMs === undefined || now - lastReportMs >= ERROR_REPORT_MS) {
      lastReportMs = now
      opts.onError(err)
    }
  }

  const writeNow = (): Promise<void> => {
    if (count === 0) return DONE
    const batch = take()
    let pending: void | Promise<void>
    try {
      pending = writer.write(batch)
    } catch (err) {
      failed(batch.count, err)
      return DONE
    }
    if (pending === undefined) return DONE
    const p: Promise<void> = pending
      .then(
        () => undefined,
        (err: unknown) => failed(batch.count, err),
      )
      .finally(() => {
        if (inFlight === p) inFlight = undefined
      })
    inFlight = p
    return p
  }
  // One write at a time; records pushed meanwhile go with the next one (or are dropped oldest-first when the ring
  // fills).
  const flush = (): Promise<void> => (inFlight ? inFlight.then(flush) : writeNow())

  return {
    push(ctx, method, status, charged, served, startedMs) {
      const now = clock()
      add(
        ctx.entry.id,
        ctx.entry.accountId,
        ctx.network.name,
        method,
        status ?? 'ok',
        now - startedMs,
        charged,
        served === undefined ? null : (served.source ?? served.upstream),
        ctx.origin ?? ctx.client?.remoteAddress ?? null,
        now,
      )
    },
    refused(entry, network, method, status, charged) {
      add(entry.id, entry.accountId, network, method, status, 0, charged, null, null, clock())
    },
    takeWrittenKeys() {
      const keys = written
      written = new Set()
      return keys
    },
    flush,
    start() {
      timer = setInterval(() => {
        if (!inFlight) void writeNow()
      }, opts.flushMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await flush()
      await writer.close?.()
    },
    health: () => ({ bufferedRows: count, droppedCalls: dropped }),
    writer,
  }
}
