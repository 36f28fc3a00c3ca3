/**
 * WebSocket subscribers for bench/fanout.bench.ts, in their own process (so their receiving does not share the
 * gateway's event loop): `node --import tsx bench/fanout-clients.ts <ws-url> <count>`.
 * Opens `count` sockets, subscribes each to newHeads, prints `{"url": …, "clients": count}` once all are subscribed,
 * then reads commands on stdin, one JSON line each:
 *   {"wait": <block number>}  → once every socket has that block, prints {"n": …, "times": [arrival per socket]}
 * (arrival: performance.timeOrigin + performance.now(), ms, comparable across processes on one machine).
 * Exits when stdin closes.
 */
import { createInterface } from 'node:readline'
import WebSocket from 'ws'

const [url, countArg] = process.argv.slice(2)
const count = Number(countArg)
if (!url || !Number.isInteger(count) || count < 1) {
  console.error('usage: node --import tsx bench/fanout-clients.ts <ws-url> <count>')
  process.exit(2)
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

// The block number is read from the text without parsing the whole notification: what the client costs is kept
// small, the measurement is of the gateway.
const NUMBER = /"number":"(0x[0-9a-f]+)"/
function open(i: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url!)
    ws.once('error', reject)
    ws.on('message', (data) => {
      const text = data.toString()
      if (!text.includes('eth_subscription')) {
        if (text.includes('"id":1')) resolve(ws)
        return
      }
      const t = now()
      const m = NUMBER.exec(text)
      if (!m) return
      const n = Number(m[1])
      const a = arrivalsOf(n)
      if (!Number.isNaN(a[i]!)) return
      a[i] = t
      const left = missing.get(n)! - 1
      missing.set(n, left)
      if (left === 0 && waiting?.n === n) waiting.done()
    })
    ws.once('open', () => ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}'))
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
