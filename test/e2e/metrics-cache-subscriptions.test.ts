/**
 * The on-call signals of the cache and of subscriptions on /metrics (docs/deploy.md, "Metrics"), moved by real calls
 * through the real gateway on a real anvil: a cacheable read twice is one miss then one hit of its cache rule; two
 * clients on newHeads count 2 client subscriptions on one node subscription, and 1 once one has left; a mined block
 * is one fan-out observation, not one per client.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { request } from 'undici'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { rpcAt, waitFor } from './helpers/ws-subscribers.ts'
import WebSocket from 'ws'

let anvil: RunningAnvil
let s: TestServer

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 4271, port: 0, blockTimeSeconds: 0 })
  s = await startTestServer({
    networks: [{ name: 'ext', chainId: 4271, upstreams: [{ url: anvil.url, wsUrl: anvil.wsUrl }] }],
  })
})
afterAll(async () => {
  await s?.stop()
  await anvil?.stop()
})

const scrape = async () => (await request(`${s.url}/metrics`)).body.text()
/** The value of one exact series (name and labels as /metrics writes them), 0 when absent. */
const seriesValue = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}
/** A look-up series of `ext`: a hit from memory, or a miss. */
const lookups = (rule: string, result: 'hit' | 'miss') => {
  const tier = result === 'hit' ? 'memory' : 'none'
  return `chaingate_cache_lookups_total{network="ext",rule="${rule}",result="${result}",tier="${tier}"}`
}

it('a cacheable read twice: one miss, then one hit, of its cache rule', async () => {
  const genesis = ((await rpcAt(anvil.url, 'eth_getBlockByNumber', ['0x0', false])) as { hash: string }).hash
  for (const [rule, body] of [
    ['static', call('eth_chainId')],
    ['hash', call('eth_getBlockByHash', [genesis, false])],
  ] as const) {
    const before = await scrape()
    const first = await s.rpc(body, { network: 'ext' })
    expect(first.status).toBe(200)
    const afterFirst = await scrape()
    expect(seriesValue(afterFirst, lookups(rule, 'miss')), rule).toBe(seriesValue(before, lookups(rule, 'miss')) + 1)
    expect(seriesValue(afterFirst, lookups(rule, 'hit')), rule).toBe(seriesValue(before, lookups(rule, 'hit')))
    const second = await s.rpc(body, { network: 'ext' })
    expect(second.json().result).toEqual(first.json().result)
    const afterSecond = await scrape()
    expect(seriesValue(afterSecond, lookups(rule, 'hit')), rule).toBe(seriesValue(before, lookups(rule, 'hit')) + 1)
    expect(seriesValue(afterSecond, lookups(rule, 'miss')), rule).toBe(seriesValue(before, lookups(rule, 'miss')) + 1)
  }
  // A redis series only with a Redis tier (CHAINGATE_TEST_REDIS); a read of the tip is no look-up at all.
  const text = await scrape()
  expect(text.includes('tier="redis"')).toBe(Boolean(process.env.CHAINGATE_TEST_REDIS))
  await s.rpc(call('eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest']), { network: 'ext' })
  expect((await scrape()).match(/^chaingate_cache_lookups_total\{.*$/gm)).toEqual(
    text.match(/^chaingate_cache_lookups_total\{.*$/gm),
  )
})

/** A client of the gateway's WebSocket on `ext`, subscribed to newHeads; `heads` are the events it received. */
async function subscriber() {
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/ext/ws/v3/${s.key.key}`)
  const inbox: any[] = []
  const heads: string[] = []
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString())
    if (m.method === 'eth_subscription') heads.push(m.params.result.number)
    else inbox.push(m)
  })
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  const ask = async (body: { id: unknown }) => {
    ws.send(JSON.stringify(body))
    return waitFor(() => inbox.find((m) => m.id === body.id))
  }
  const id = (await ask(call('eth_subscribe', ['newHeads'], 1))).result as string
  return { ws, heads, id, ask }
}

it('client and node subscriptions by kind, and one fan-out observation per mined block', async () => {
  const clients = (kind: string, text: string) =>
    seriesValue(text, `chaingate_client_subscriptions{network="ext",kind="${kind}"}`)
  const held = (kind: string, text: string) =>
    seriesValue(text, `chaingate_upstream_subscriptions{network="ext",kind="${kind}"}`)
  const fanouts = (text: string) =>
    seriesValue(text, 'chaingate_subscription_fanout_seconds_count{network="ext",kind="newHeads"}')

  const idle = await scrape()
  // Every kind of the family is listed, at 0 before anyone subscribes.
  for (const kind of ['newHeads', 'logs', 'newPendingTransactions']) {
    expect(idle).toContain(`chaingate_client_subscriptions{network="ext",kind="${kind}"} 0`)
    expect(idle).toContain(`chaingate_upstream_subscriptions{network="ext",kind="${kind}"} 0`)
  }

  const a = await subscriber()
  const b = await subscriber()
  const both = await scrape()
  expect(clients('newHeads', both)).toBe(2)
  expect(held('newHeads', both)).toBe(1)
  expect(clients('logs', both)).toBe(0)
  const before = fanouts(both)

  await rpcAt(anvil.url, 'evm_mine')
  const mined = (await rpcAt(anvil.url, 'eth_blockNumber')) as string
  await waitFor(() => a.heads.includes(mined) && b.heads.includes(mined))
  const after = await scrape()
  // Two clients got the block: one observation (per node notification), with its time in the sum.
  expect(fanouts(after)).toBe(before + 1)
  expect(
    seriesValue(after, 'chaingate_subscription_fanout_seconds_sum{network="ext",kind="newHeads"}'),
  ).toBeGreaterThan(0)
  expect(
    seriesValue(after, 'chaingate_subscription_fanout_seconds_bucket{le="+Inf",network="ext",kind="newHeads"}'),
  ).toBe(before + 1)

  expect((await a.ask(call('eth_unsubscribe', [a.id], 2))).result).toBe(true)
  const one = await scrape()
  expect(clients('newHeads', one)).toBe(1)
  expect(held('newHeads', one)).toBe(1)

  // The last client gone (its socket closed): no client and no node subscription left.
  b.ws.close()
  await expect.poll(async () => clients('newHeads', await scrape())).toBe(0)
  expect(held('newHeads', await scrape())).toBe(0)
  a.ws.close()
})
