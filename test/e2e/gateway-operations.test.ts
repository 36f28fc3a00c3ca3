import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { request } from 'undici'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { startTestServer, call, type TestServer } from './helpers/server.ts'

let anvil: RunningAnvil
let wsOnly: RunningAnvil
let s: TestServer

beforeAll(async () => {
  // A network backed by an external node (an anvil this test starts itself), beside an embedded one.
  ;[anvil, wsOnly] = await Promise.all([
    startAnvil({ chainId: 4242, port: 0, blockTimeSeconds: 0 }),
    startAnvil({ chainId: 4244, port: 0, blockTimeSeconds: 0 }),
  ])
  s = await startTestServer({
    networks: [
      { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
      {
        name: 'external',
        chainId: 4242,
        hosts: ['external.example'],
        upstreams: [{ url: anvil.url, wsUrl: anvil.wsUrl }],
      },
      { name: 'external-ws', chainId: 4244, upstreams: [{ url: wsOnly.wsUrl }] },
      { name: 'dead-ws', chainId: 4243, upstreams: [{ url: 'ws://127.0.0.1:1/' }] },
    ],
  })
})
afterAll(async () => {
  await s?.stop()
  await anvil?.stop()
  await wsOnly?.stop()
})

describe('operations', () => {
  it('a node reached only by ws(s) serves calls, batches and subscriptions over its one WebSocket', async () => {
    const one = await s.rpc(call('eth_chainId', [], 'abc'), { network: 'external-ws' })
    expect(one.status).toBe(200)
    expect(one.json()).toEqual({ jsonrpc: '2.0', id: 'abc', result: '0x1094' })
    // Repeated client ids come back as sent, in order.
    const batch = await s.rpc(
      [
        call('net_version', [], 7),
        call('eth_chainId', [], 7),
        call('eth_getBalance', ['0xnot-an-address', 'latest'], 8),
      ],
      { network: 'external-ws' },
    )
    const answers = batch.json()
    expect(answers.map((a: any) => a.id)).toEqual([7, 7, 8])
    expect(answers[0].result).toBe('4244')
    expect(answers[1].result).toBe('0x1094')
    expect(answers[2].error.code).toBe(-32602) // the node's own error, passed through
    // Many calls in flight on the one connection, each gets its own answer.
    const many = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.rpc(call('eth_getBlockByNumber', ['0x0', false], i), { network: 'external-ws' }),
      ),
    )
    expect(many.map((r) => r.json().id)).toEqual(Array.from({ length: 20 }, (_, i) => i))
    expect(new Set(many.map((r) => r.json().result.hash)).size).toBe(1)

    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/external-ws/ws/v3/${s.key.key}`)
    await new Promise((r) => ws.once('open', r))
    const messages: any[] = []
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())))
    ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'])))
    while (!messages.some((m) => m.id === 1)) await new Promise((r) => setTimeout(r, 20))
    expect(messages.find((m) => m.id === 1).result).toMatch(/^0x[0-9a-f]+$/)
    ws.close()
  })

  it('a ws(s) node that cannot be reached gives a JSON-RPC error naming the network, and the gateway goes on', async () => {
    const res = await s.rpc(call('eth_chainId'), { network: 'dead-ws' })
    expect(res.status).toBe(503)
    expect(res.json().error.message).toContain('dead-ws')
    expect((await s.rpc(call('eth_chainId'), { network: 'external-ws' })).status).toBe(200)

    // Subscribing through it fails the same way, and costs nothing.
    const { account, key } = await s.newKey('team')
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/dead-ws/ws/v3/${key.key}`)
    await new Promise((r) => ws.once('open', r))
    const answer = new Promise<any>((r) => ws.once('message', (d) => r(JSON.parse(d.toString()))))
    ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 9)))
    const sub = await answer
    expect(sub.id).toBe(9)
    expect(sub.error.message).toContain('dead-ws')
    expect(s.parts.limits.usedToday(account.id, Date.now())).toBe(0)
    ws.close()
  })

  it('a network with an external upstream URL serves HTTP and WebSocket subscriptions', async () => {
    const res = await s.rpc(call('eth_chainId'), { network: 'external' })
    expect(res.json().result).toBe('0x1092')
    const byHost = await request(`${s.url}/v3/${s.key.key}`, {
      method: 'POST',
      headers: { host: 'external.example' },
      body: JSON.stringify(call('net_version')),
    })
    expect(await byHost.body.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '4242' })

    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/external/ws/v3/${s.key.key}`)
    await new Promise((r) => ws.once('open', r))
    const messages: any[] = []
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())))
    ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'])))
    while (!messages.some((m) => m.id === 1)) await new Promise((r) => setTimeout(r, 20))
    await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call('evm_mine')),
    })
    const deadline = Date.now() + 5000
    while (!messages.some((m) => m.method === 'eth_subscription') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20))
    expect(messages.find((m) => m.method === 'eth_subscription').params.result.number).toBe('0x1')
    ws.close()
  })

  it('/metrics exposes requests by network, method and outcome, upstream latency and credits', async () => {
    await s.rpc(call('eth_blockNumber'))
    await s.rpc(call('eth_sign', []))
    await s.rpc(call('eth_chainId'), { key: '0123456789abcdef0123456789abcdef' })
    const res = await request(`${s.url}/metrics`)
    const text = await res.body.text()
    expect(res.headers['content-type']).toContain('text/plain')
    expect(text).toMatch(/chaingate_requests_total\{network="devnet-a",method="eth_blockNumber",outcome="ok"\} \d+/)
    expect(text).toMatch(/chaingate_requests_total\{network="devnet-a",method="eth_sign",outcome="error"\} 1/)
    expect(text).toMatch(/chaingate_requests_total\{network="devnet-a",method="\(refused\)",outcome="http_401"\} 1/)
    expect(text).toMatch(/chaingate_upstream_latency_seconds_bucket\{le="[^"]+",network="devnet-a"\} \d+/)
    expect(text).toMatch(/chaingate_credits_charged_total\{network="devnet-a"\} \d+/)
    // Client-facing duration, arrival to answer: by method class and outcome.
    expect(text).toContain('# TYPE chaingate_request_duration_seconds histogram')
    expect(text).toMatch(
      /chaingate_request_duration_seconds_count\{network="devnet-a",method_class="read",outcome="ok"\} [1-9]/,
    )
    expect(text).toContain(
      'chaingate_request_duration_seconds_bucket{le="+Inf",network="devnet-a",method_class="read",' +
        'outcome="client_error"} 1',
    )
    // The running config version, as /healthz shows it.
    expect(text).toContain(`chaingate_config_info{version="${s.app.configVersion().version}"} 1`)
  })

  it('random method names do not create new metric labels', async () => {
    await s.rpc(call('eth_random_1'))
    await s.rpc(call('eth_random_2'))
    const text = await (await request(`${s.url}/metrics`)).body.text()
    expect(text).not.toContain('eth_random_1')
    expect(text).toContain('method="other"')
  })

  it('one structured log line per request, with the key id and never the key', async () => {
    await new Promise((r) => setTimeout(r, 300)) // earlier requests' lines are written
    const before = s.logs.filter((l) => l.msg === 'rpc').length
    await s.rpc(call('eth_chainId', [], 77))
    await s.rpc([call('eth_chainId', [], 1), call('eth_chainId', [], 2)])
    // Request lines are written in batches (every 100 ms).
    let lines: Record<string, unknown>[] = []
    const deadline = Date.now() + 2000
    while (lines.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25))
      lines = s.logs.filter((l) => l.msg === 'rpc').slice(before)
    }
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatchObject({ level: 30, msg: 'rpc' })
    expect(typeof lines[0]!.time).toBe('number')
    expect(lines[0]).toMatchObject({
      keyId: s.key.id,
      network: 'devnet-a',
      method: 'eth_chainId',
      calls: 1,
      status: 200,
      credits: 5,
    })
    expect(lines[1]).toMatchObject({ method: 'batch', calls: 2, credits: 10 })
    expect(typeof lines[0]!.ms).toBe('number')
    expect(s.logText()).not.toContain(s.key.key)
  })
})
