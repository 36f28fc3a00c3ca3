/**
 * WebSocket subscribers for bench/fanout.bench.ts and bench/solana-fanout.bench.ts, in their own process (so their
 * receiving does not share the gateway's event loop): `node --import tsx bench/fanout-clients.ts <ws-url> <count>
 * [newHeads|slot]`.
 * Opens `count` sockets, subscribes each to newHeads (`eth_subscribe`) or, with `slot`, to Solana's slots
 * (`slotSubscribe`), prints `{"url": …, "clients": count}` once all are subscribed, then reads commands on stdin, one
 * JSON line each:
 *   {"wait": <block or slot number>}  → once every socket has it, prints {"n": …, "times": [arrival per socket]}
 * (arrival: performance.timeOrigin + performance.now(), ms, comparable across processes on one machine).
 * Exits when stdin closes.
 */
import { createInterface } from 'node:readline'
import type { Duplex } from 'node:stream'
import WebSocket from 'ws'

const [url, countArg, kindArg = 'newHeads'] = process.argv.slice(2)
const count = Number(countArg)
if (!url || !Number.isInteger(count) || count < 1 || (kindArg !== 'newHeads' && kindArg !== 'slot')) {
  console.error('usage: node --import tsx bench/fanout-clients.ts <ws-url> <count> [newHeads|slot]')
  process.exit(2)
}
/** What each socket subscribes to, and where a notification's number is: a head's hex `number`, a decimal `slot`. */
const KIND =
  kindArg === 'slot'
    ? {
        subscribe: '{"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}',
        notification: 'slotNotification',
        marker: Buffer.from('"slot":'),
        radix: 10,
        pattern: /"slot":(\d+)/,
      }
    : {
        subscribe: '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}',
        notification: 'eth_subscription',
        marker: Buffer.from('"number":"0x'),
        radix: 16,
        pattern: /"number":"(0x[0-9a-f]+)"/,
      }

const now = () => performance.timeOrigin + performance.now()
/** Per block number, each socket's arrival time (NaN: not yet). */
const arrivals = new Map<number, Float64Array>()
const missing = new Map<number, number>()
let waiting: { n: number; done: () => void } | undefined

const arrivalsOf = (n: number) => {
  let a = arrivals.get(n)
  if (a === undefined) {
    arrivals.set(n, (a = new Float64Array(count).fill(Number.NaN)))
    missing.set(n, count)
  }
  return a
}

function arrived(i: number, n: number, t: number): void {
  const a = arrivalsOf(n)
  if (!Number.isNaN(a[i]!)) return
  a[i] = t
  const left = missing.get(n)! - 1
  missing.set(n, left)
  if (left === 0 && waiting?.n === n) waiting.done()
}

// What the clients cost is kept small, so the measurement is of the gateway: once subscribed, a socket's frames are
// read from its bytes (RFC 6455 §5.2; the server's are unmasked) instead of through ws's receiver, and the block
// (or slot) number is read from the payload without decoding it.
function blockNumber(payload: Buffer): number | undefined {
  const at = payload.indexOf(KIND.marker)
  if (at < 0) return undefined
  let n = 0
  for (let k = at + KIND.marker.length; k < payload.length; k++) {
    const digit = Number.parseInt(String.fromCharCode(payload[k]!), KIND.radix)
    if (Number.isNaN(digit)) break
    n = n * KIND.radix + digit
  }
  return n
}

/** Takes `ws`'s socket over: every whole text frame's block number to `arrived`. */
function readFrames(i: number, ws: WebSocket): void {
  const socket = (ws as unknown as { _socket: Duplex })._socket
  let pending: Buffer | undefined
  socket.removeAllListeners('data')
  socket.on('data', (chunk: Buffer) => {
    const t = now()
    let buf = pending === undefined ? chunk : Buffer.concat([pending, chunk])
    pending = undefined
    for (;;) {
      if (buf.length < 2) break
      let length = buf[1]! & 0x7f
      let head = 2
      if (length === 126) {
        if (buf.length < 4) break
        length = buf.readUInt16BE(2)
        head = 4
      } else if (length === 127) {
        if (buf.length < 10) break
        length = Number(buf.readBigUInt64BE(2))
        head = 10
      }
      if (buf.length < head + length) break
      const n = (buf[0]! & 0x0f) === 1 ? blockNumber(buf.subarray(head, head + length)) : undefined
      if (n !== undefined) arrived(i, n, t)
      buf = buf.subarray(head + length)
    }
    if (buf.length > 0) pending = buf
  })
}

function open(i: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url!)
    ws.once('error', reject)
    ws.on('message', (data) => {
      const text = data.toString()
      if (text.includes(KIND.notification)) {
        const m = KIND.pattern.exec(text)
        if (m) arrived(i, Number(m[1]), now())
      } else if (text.includes('"id":1')) {
        readFrames(i, ws)
        resolve(ws)
      }
    })
    ws.once('open', () => ws.send(KIND.subscribe))
  })
}

const sockets: WebSocket[] = []
const PARALLEL = 100
for (let i = 0; i < count; i += PARALLEL) {
  const batch = []
  for (let j = i; j < Math.min(count, i + PARALLEL); j++) batch.push(open(j))
  sockets.push(...(await Promise.all(batch)))
}
process.stdout.write(`${JSON.stringify({ url, clients: sockets.length })}\n`)

const lines = createInterface({ input: process.stdin })
lines.on('line', (line) => {
  const { wait: n } = JSON.parse(line) as { wait: number }
  const reply = () => {
    waiting = undefined
    process.stdout.write(`${JSON.stringify({ n, times: [...arrivals.get(n)!] })}\n`)
    arrivals.delete(n)
    missing.delete(n)
  }
  arrivalsOf(n)
  if (missing.get(n) === 0) reply()
  else waiting = { n, done: reply }
})
lines.on('close', () => {
  for (const ws of sockets) ws.terminate()
  process.exit(0)
})
