/**
 * `node --import tsx bench/subscriptions.bench.ts`: WebSocket fan-out and failover (docs/subscriptions.md).
 * One real anvil; BENCH_CLIENTS WebSocket clients (this process) subscribe to newHeads
 *
 *   direct   on anvil itself (one node subscription per client: the reference)
 *   gateway  through chaingate with two upstreams (TCP proxies to the anvil): one node subscription for all
 *
 * and each block's delivery time to every client is measured (block mined → the last client has it). Then the
 * gateway's current upstream is cut while 5 blocks are mined: time until every client has them, whether every
 * client's block numbers stayed contiguous and unique, and sockets closed (target 0).
 *
 * Settings (environment): BENCH_CLIENTS (500), BENCH_BLOCKS per phase (30).
 */
import WebSocket from 'ws'
import { startAnvil } from '../src/upstreams/devnet/anvil.ts'
import { startTcpProxy } from '../test/support/tcp-proxy.ts'
import { call, startTestServer } from '../test/e2e/helpers/server.ts'

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 500)
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 30)

const anvil = await startAnvil({ chainId: 31341, port: 0, blockTimeSeconds: 0 })
const rpc = async (method: string, params: unknown[] = []) =>
  (
    (await (
      await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(call(method, params)),
      })
    ).json()) as { result: unknown }
  ).result
const mine = () => rpc('anvil_mine', ['0x1'])

/** CLIENTS sockets subscribed to newHeads at `url`; each keeps the block numbers it received. */
async function subscribers(url: string) {
  const seen: number[][] = []
  const sockets: WebSocket[] = []
  for (let i = 0; i < CLIENTS; i++) {
    const ws = new WebSocket(url)
    await new Promise((r, j) => ws.once('open', r).once('error', j))
    const numbers: number[] = []
    seen.push(numbers)
    let subscribed!: () => void
    const answered = new Promise<void>((r) => (subscribed = r))
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString())
      if (m.method === 'eth_subscription') numbers.push(Number(m.params.result.number))
      else if (m.id === 1) subscribed()
    })
    ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 1)))
    await answered
    sockets.push(ws)
  }
  const allHave = (n: number) => seen.every((x) => x.includes(n))
  return { seen, sockets, allHave, close: () => sockets.forEach((s) => s.close()) }
}

/** Per block: ms from mining it until every client has it; median and max. */
async function deliveryMs(s: Awaited<ReturnType<typeof subscribers>>) {
  const times: number[] = []
  for (let i = 0; i < BLOCKS; i++) {
    const t = performance.now()
    await mine()
    const n = Number(await rpc('eth_blockNumber'))
    while (!s.allHave(n)) await new Promise((r) => setImmediate(r))
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return { median: times[Math.floor(times.length / 2)]!, max: times[times.length - 1]! }
}

const direct = await subscribers(anvil.wsUrl)
const d = await deliveryMs(direct)
direct.close()

const a = await startTcpProxy(anvil.url)
const b = await startTcpProxy(anvil.url)
const server = await startTestServer({
  networks: [{ name: 'remote', chainId: 31341, upstreams: [a, b].map((p) => ({ url: p.url, wsUrl: p.wsUrl })) }],
  plans: { bench: { creditsPerDay: 1e12, creditsPerSecond: 1e9, maxKeys: null } },
  // CLIENTS sockets of one key from one address.
  gateway: { maxWsConnectionsPerKey: 1_000_000, maxWsConnectionsPerAddress: 1_000_000, maxSubscriptionsPerKey: 1e7 },
})
const { key } = await server.newKey('bench')
const viaGateway = await subscribers(`${server.url.replace('http', 'ws')}/networks/remote/ws/v3/${key.key}`)
const hub = server.parts.hubs.get('remote')!
const g = await deliveryMs(viaGateway)

const cutAt = performance.now()
await (hub.upstream === a.wsUrl ? a : b).cut()
for (let i = 0; i < 5; i++) await mine()
const top = Number(await rpc('eth_blockNumber'))
while (!viaGateway.allHave(top)) await new Promise((r) => setTimeout(r, 2))
const switchMs = performance.now() - cutAt
const contiguous = viaGateway.seen.every((x) => x.every((n, i) => i === 0 || n === x[i - 1]! + 1))
const closed = viaGateway.sockets.filter((s) => s.readyState !== WebSocket.OPEN).length
const resumed = server.logs.find((l) => l.msg === 'subscriptions resumed') as { afterMs?: number } | undefined

console.log(`\n${CLIENTS} newHeads clients, ${BLOCKS} blocks, one machine, same run\n`)
console.log('| | node subscriptions | block → all clients, median | max |')
console.log('|---|---|---|---|')
console.log(`| anvil direct | ${CLIENTS} | ${d.median.toFixed(1)} ms | ${d.max.toFixed(1)} ms |`)
console.log(
  `| chaingate (2 upstreams) | ${hub.size} | ${g.median.toFixed(1)} ms (${(g.median / d.median).toFixed(2)}× direct) ` +
    `| ${g.max.toFixed(1)} ms |`,
)
console.log(
  `\nupstream cut while 5 blocks were mined: every client had them after ${switchMs.toFixed(0)} ms (hub resumed ` +
    `after ${resumed?.afterMs ?? '?'} ms); ` +
    `numbers contiguous and unique for every client: ${contiguous}; sockets closed: ${closed}`,
)

viaGateway.close()
await server.stop()
await a.close()
await b.close()
await anvil.stop()
process.exit(0)
