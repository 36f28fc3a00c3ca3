/**
 * WebSocket subscribers for the subscription tests (ws-failover, ws-failback): a client of the gateway's
 * `/networks/<network>/ws/v3/<key>` that queues answers and events, newHeads and logs subscribers, and the checks
 * the tests share.
 */
import WebSocket from 'ws'
import { call, type TestServer } from './server.ts'

/** A JSON-RPC call straight to a node (not through the gateway). */
export const rpcAt = async (url: string, method: string, params: unknown[] = []) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(call(method, params)),
  })
  const body = (await res.json()) as { result?: unknown; error?: unknown }
  if (body.error) throw new Error(JSON.stringify(body.error))
  return body.result
}

export async function waitFor<T>(probe: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A WebSocket client that queues what it receives (network `remote`, the server's first key unless told). */
export async function connect(s: TestServer, key: string = s.key.key) {
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/remote/ws/v3/${key}`)
  const inbox: any[] = []
  const events: any[] = []
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString())
    if (m.method === 'eth_subscription') events.push(m.params)
    else inbox.push(m)
  })
  let closedWith: { code: number; reason: string } | undefined
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.on('close', (code, reason) => r((closedWith = { code, reason: reason.toString() }))),
  )
  await new Promise((r, j) => {
    ws.once('open', r)
    ws.once('error', j)
  })
  const ask = async (body: any, timeoutMs = 20_000) => {
    ws.send(JSON.stringify(body))
    return waitFor(() => inbox.find((m) => m.id === body.id), timeoutMs)
  }
  return { ws, events, ask, closed, closedWith: () => closedWith }
}

export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
export const headNumbers = (events: any[], sub: string) =>
  events.filter((e) => e.subscription === sub).map((e) => Number(e.result.number))

/** A client subscribed to newHeads (request id 1): `heads()` are the block numbers it has received. */
export async function newHeadsClient(s: TestServer, key?: string) {
  const c = await connect(s, key)
  const sub = (await c.ask(call('eth_subscribe', ['newHeads'], 1))).result
  return { ...c, sub, heads: () => headNumbers(c.events, sub) }
}
export type HeadsClient = Awaited<ReturnType<typeof newHeadsClient>>

/** A client subscribed to every log (request id 1): `logs()` are the log objects it has received. */
export async function logsClient(s: TestServer, key?: string) {
  const c = await connect(s, key)
  const sub = (await c.ask(call('eth_subscribe', ['logs', {}], 1))).result
  return { ...c, sub, logs: () => c.events.filter((e) => e.subscription === sub).map((e) => e.result) }
}

/** Waits until every client has received head `n`. */
export const allHave = (clients: HeadsClient[], n: number, timeoutMs?: number) =>
  waitFor(() => clients.every((c) => c.heads().includes(n)), timeoutMs)
