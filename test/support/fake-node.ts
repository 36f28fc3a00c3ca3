/**
 * A scriptable fake upstream node: a real node:http server on port 0 that answers each JSON-RPC request as the
 * test says (status, JSON body, headers). The tests' one fake of an upstream: it stands where a provider would.
 *
 * It keeps a small chain of its own (a head number, block hashes that change on a reorg), answers
 * eth_blockNumber and eth_getBlockByNumber from it, and can be told to misbehave: refuse connections (`kill`),
 * reset them, hang, answer slowly (always or on a share of calls), answer an HTTP status, lag, reorg; a script's
 * `raw` reply writes the answer's bytes itself (trickled, cut short, compressed).
 *
 * It also speaks JSON-RPC over WebSocket on the same port (`wsUrl`): calls are answered like HTTP ones (and
 * recorded in `wsRequests`), eth_subscribe/eth_unsubscribe keep subscriptions, `notify` sends an event to every
 * subscription of a kind; the `hang` and `reset` faults apply there too. Solana's PubSub too
 * (https://solana.com/docs/rpc/websocket): `<kind>Subscribe` answers an integer id, `<kind>Unsubscribe` true or
 * Agave's -32602, `notifySolana` sends a `<kind>Notification` (a signature subscription ends with its final one);
 * getGenesisHash answers `genesisHash` (settable), getHealth `ok`.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'

export interface FakeReply {
  status?: number
  /** An object is sent as JSON; a string as is. */
  body?: unknown
  headers?: Record<string, string>
  /**
   * Takes over writing the answer (status, headers and bytes as the test wants them: a body that trickles, a
   * connection closed mid-body, a gzip body); `body`, `status` and `headers` are then ignored.
   */
  raw?: (res: ServerResponse) => void
}

export interface FakeRequest {
  /** The parsed body (a call or a batch). */
  body: any
  headers: IncomingHttpHeaders
  url: string
}

/** What the node does to every request (after counting it), before the script answers. */
export type Fault =
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** Destroys the connection without an answer. */
  | { kind: 'reset' }
  /** Answers after `ms`, on every call or on a `share` (0–1) of them, chosen at random. */
  | { kind: 'slow'; ms: number; share?: number }
  /** Answers this HTTP status with this body (a JSON-RPC error object for every call when omitted). */
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }

export interface FakeNode {
  /** http://127.0.0.1:PORT/ */
  url: string
  /** ws://127.0.0.1:PORT/ */
  wsUrl: string
  /** Every WebSocket message received (a call or a batch), in order. */
  wsRequests: FakeRequest[]
  /** Sends `result` as an eth_subscription event to every open subscription of `kind` (e.g. newHeads). */
  notify(kind: string, result: unknown): void
  /**
   * Solana: sends `result` as a `<kind>Notification` to every open subscription of `kind` whose params (JSON) start
   * with `match` when given; a signature subscription is dropped after a result other than receivedSignature.
   */
  notifySolana(kind: string, result: unknown, match?: string): void
  /** The base58 genesis hash getGenesisHash answers. */
  genesisHash: string
  /**
   * Solana: a notification result sent right after a subscribe's answer when this gives one (a validator does so for
   * a signature already at the commitment asked).
   */
  afterSubscribe: ((kind: string, params: unknown[]) => unknown) | undefined
  /** Open WebSocket subscriptions. */
  readonly subscriptions: number
  /** Every request received, in order, except the gateway's head polls (eth_getBlockByNumber latest/finalized). */
  requests: FakeRequest[]
  /** The head polls received (requests for the 'latest' or 'finalized' block). */
  headPolls: FakeRequest[]
  /** Replaces the script (undefined from it: the default answer). */
  answer(script: Script): void
  /** Misbehave from now on (undefined: behave). */
  fault(f: Fault | undefined): void
  /** The node's chain tip (default 1). Blocks above it are null; `finalized` is 10 below it. */
  setHead(n: number): void
  readonly head: number
  /** Blocks from `fromBlock` up get new hashes (a reorg), from the node's point of view. */
  reorg(fromBlock: number): void
  /** The hash the node gives block `n`. */
  hashOf(n: number): string
  /** Stops accepting connections (clients get ECONNREFUSED) and drops open ones; `revive` listens again, same port. */
  kill(): Promise<void>
  revive(): Promise<void>
  close(): Promise<void>
}

/**
 * What the node answers; undefined: the default (its chain id for eth_chainId, its chain for blocks, `0x1` for anything
 * else).
 */
export type Script = (req: FakeRequest) => FakeReply | undefined

/** A JSON-RPC result for the call (or every call of a batch). */
export const result = (req: FakeRequest, value: unknown): unknown =>
  Array.isArray(req.body)
    ? req.body.map((c: { id: unknown }) => ({ jsonrpc: '2.0', id: c.id, result: value }))
    : { jsonrpc: '2.0', id: req.body.id, result: value }

/** A JSON-RPC error for the call. */
export const rpcError = (req: FakeRequest, code: number, message: string): unknown => ({
  jsonrpc: '2.0',
  id: Array.isArray(req.body) ? null : req.body.id,
  error: { code, message },
})

const hex = (n: number) => `0x${n.toString(16)}`
const isHeadPoll = (body: any): boolean => {
  const calls = Array.isArray(body) ? body : [body]
  return (
    calls.length > 0 &&
    calls.every(
      (c) => c?.method === 'eth_getBlockByNumber' && (c.params?.[0] === 'latest' || c.params?.[0] === 'finalized'),
    )
  )
}

/** Starts a fake node answering as `script` says. */
export async function startFakeNode(chainIdHex: string, script?: Script): Promise<FakeNode> {
  const requests: FakeRequest[] = []
  const headPolls: FakeRequest[] = []
  let head = 1
  /** The first block of each reorg: a block's hash changes with every reorg at or below it. */
  const reorgs: number[] = []
  let current: Script = script ?? (() => undefined)
  let fault: Fault | undefined
  const sockets = new Set<Socket>()
  const hashOf = (n: number) =>
    `0x${reorgs
      .filter((from) => from <= n)
      .length.toString(16)
      .padStart(8, '0')}${n.toString(16).padStart(56, '0')}`
  const block = (n: number) =>
    n < 0 || n > head
      ? null
      : {
          number: hex(n),
          hash: hashOf(n),
          parentHash: n === 0 ? `0x${'0'.repeat(64)}` : hashOf(n - 1),
          transactions: [],
        }
  const blockOf = (tag: unknown) =>
    tag === 'latest' || tag === 'pending' || tag === 'safe'
      ? block(head)
      : tag === 'finalized'
        ? block(Math.max(0, head - 10))
        : tag === 'earliest'
          ? block(0)
          : typeof tag === 'string'
            ? block(Number.parseInt(tag, 16))
            : null
  let genesisHash = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG'
  const defaultResult = (c: any): unknown =>
    c?.method === 'getGenesisHash'
      ? genesisHash
      : c?.method === 'getHealth'
        ? 'ok'
        : c?.method === 'eth_chainId'
          ? chainIdHex
          : c?.method === 'eth_blockNumber'
            ? hex(head)
            : c?.method === 'eth_getBlockByNumber'
              ? blockOf(c.params?.[0])
              : '0x1'
  const fallback = (req: FakeRequest): FakeReply => ({
    body: Array.isArray(req.body)
      ? req.body.map((c: any) => ({ jsonrpc: '2.0', id: c?.id, result: defaultResult(c) }))
      : { jsonrpc: '2.0', id: req.body?.id, result: defaultResult(req.body) },
  })
  const write = (res: ServerResponse, reply: FakeReply) => {
    if (res.destroyed) return
    if (reply.raw !== undefined) return reply.raw(res)
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers })
    res.end(text)
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      let body: unknown
      try {
        body = JSON.parse(Buffer.concat(chunks).toString())
      } catch {
        body = undefined
      }
      const r: FakeRequest = { body, headers: req.headers, url: req.url ?? '/' }
      ;(isHeadPoll(body) ? headPolls : requests).push(r)
      const f = fault
      if (f?.kind === 'hang') return
      if (f?.kind === 'reset') return void req.socket.destroy()
      if (f?.kind === 'status')
        return write(res, {
          status: f.status,
          body: f.body ?? rpcError(r, -32603, `HTTP ${f.status}`),
          ...(f.headers ? { headers: f.headers } : {}),
        })
      const reply = current(r) ?? fallback(r)
      if (f?.kind === 'slow' && (f.share === undefined || Math.random() < f.share))
        setTimeout(() => write(res, reply), f.ms)
      else write(res, reply)
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  const wsRequests: FakeRequest[] = []
  const subs = new Map<string, { ws: WebSocket; kind: string }>()
  let nextSub = 1
  const solanaSubs = new Map<number, { ws: WebSocket; kind: string; params: string }>()
  let nextSolanaSub = 0
  let afterSubscribe: FakeNode['afterSubscribe']
  const wss = new WebSocketServer({ server })
  wss.on('connection', (ws, req) => {
    ws.on('message', (data) => {
      let body: any
      try {
        body = JSON.parse(data.toString())
      } catch {
        return
      }
      const r: FakeRequest = { body, headers: req.headers, url: req.url ?? '/' }
      wsRequests.push(r)
      if (fault?.kind === 'hang') return
      if (fault?.kind === 'reset') return void ws.terminate()
      if (body?.method === 'eth_subscribe' && current(r) === undefined) {
        const id = `0x${(nextSub++).toString(16)}`
        subs.set(id, { ws, kind: String(body.params?.[0]) })
        return ws.send(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: id }))
      }
      if (body?.method === 'eth_unsubscribe' && current(r) === undefined)
        return ws.send(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: subs.delete(String(body.params?.[0])) }))
      const m = typeof body?.method === 'string' ? body.method : ''
      // Before <kind>Subscribe, whose pattern (case-insensitive) also matches <kind>Unsubscribe.
      if (/^[a-z]+Unsubscribe$/i.test(m) && current(r) === undefined) {
        const known = solanaSubs.get(body.params?.[0])?.ws === ws && solanaSubs.delete(body.params?.[0])
        return ws.send(
          JSON.stringify(
            known
              ? { jsonrpc: '2.0', result: true, id: body.id }
              : { jsonrpc: '2.0', error: { code: -32602, message: 'Invalid subscription id.' }, id: body.id },
          ),
        )
      }
      if (/^[a-z]+Subscribe$/i.test(m) && current(r) === undefined) {
        const id = nextSolanaSub++
        const kind = m.slice(0, -'Subscribe'.length)
        solanaSubs.set(id, { ws, kind, params: JSON.stringify(body.params ?? []) })
        ws.send(JSON.stringify({ jsonrpc: '2.0', result: id, id: body.id }))
        const at = afterSubscribe?.(kind, body.params ?? [])
        if (at !== undefined) {
          ws.send(
            JSON.stringify({ jsonrpc: '2.0', method: `${kind}Notification`, params: { result: at, subscription: id } }),
          )
          if (kind === 'signature') solanaSubs.delete(id)
        }
        return
      }
      const reply = current(r) ?? fallback(r)
      ws.send(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body))
    })
    ws.on('close', () => {
      for (const [id, sub] of subs) if (sub.ws === ws) subs.delete(id)
      for (const [id, sub] of solanaSubs) if (sub.ws === ws) solanaSubs.delete(id)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy()
      server.close(() => resolve())
    })
  return {
    url: `http://127.0.0.1:${port}/`,
    wsUrl: `ws://127.0.0.1:${port}/`,
    wsRequests,
    notify(kind, result) {
      for (const [id, sub] of subs)
        if (sub.kind === kind)
          sub.ws.send(
            JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result } }),
          )
    },
    notifySolana(kind, result, match) {
      for (const [id, sub] of solanaSubs) {
        if (sub.kind !== kind || (match !== undefined && !sub.params.startsWith(match))) continue
        const params = { result, subscription: id }
        sub.ws.send(JSON.stringify({ jsonrpc: '2.0', method: `${kind}Notification`, params }))
        if (kind === 'signature' && (result as { value?: unknown })?.value !== 'receivedSignature')
          solanaSubs.delete(id)
      }
    },
    get afterSubscribe() {
      return afterSubscribe
    },
    set afterSubscribe(f) {
      afterSubscribe = f
    },
    get genesisHash() {
      return genesisHash
    },
    set genesisHash(h) {
      genesisHash = h
    },
    get subscriptions() {
      return subs.size + solanaSubs.size
    },
    requests,
    headPolls,
    answer(script) {
      current = script
    },
    fault(f) {
      fault = f
    },
    setHead(n) {
      head = n
    },
    get head() {
      return head
    },
    reorg(fromBlock) {
      reorgs.push(fromBlock)
    },
    hashOf,
    kill: stop,
    revive: () =>
      new Promise<void>((resolve, reject) => server.listen(port, '127.0.0.1', () => resolve()).once('error', reject)),
    close: stop,
  }
}
