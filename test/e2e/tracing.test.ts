/**
 * OpenTelemetry traces (docs/deploy.md, "Traces") read back from an OTLP/HTTP receiver started here (JSON
 * protocol, so spans are read without protobuf): a retried call, a hedged call, a batch, a WebSocket
 * subscription and its event, a client's `traceparent` continued and sent on to the node; off: nothing exported.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './helpers/otlp-receiver.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN = 31351
let otlp: OtlpReceiver
let endpoint = ''

beforeAll(async () => {
  process.env.OTEL_BSP_SCHEDULE_DELAY = '20'
  otlp = await startOtlpReceiver()
  endpoint = otlp.endpoint
})
afterAll(async () => {
  delete process.env.OTEL_BSP_SCHEDULE_DELAY
  await otlp.close()
})

let nodes: FakeNode[] = []
let servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()))
  await Promise.all(nodes.map((n) => n.close()))
  servers = []
  nodes = []
  otlp.clear()
})

const gateway = async (count: number, policy: object = {}, tracing: object | null = {}) => {
  const list = await Promise.all(Array.from({ length: count }, () => startFakeNode(`0x${CHAIN.toString(16)}`)))
  nodes.push(...list)
  const s = await startTestServer({
    networks: [
      { name: 'remote', chainId: CHAIN, upstreams: list.map((n) => ({ url: n.url })), upstreamPolicy: policy },
    ],
    ...(tracing ? { tracing: { enabled: true, endpoint, protocol: 'http/json', sampleRatio: 1, ...tracing } } : {}),
  })
  servers.push(s)
  return { s, nodes: list }
}

const waitFor = (pred: (s: ReceivedSpan) => boolean, n?: number) => otlp.waitFor(pred, n)
const childrenOf = (p: ReceivedSpan) => otlp.childrenOf(p)
const hash = (i: number) => `0x${i.toString(16).padStart(64, '0')}`

describe('traces over OTLP/HTTP', () => {
  it('a client traceparent is continued, and each attempt sends its own traceparent to the node', async () => {
    const {
      s,
      nodes: [a, b],
    } = await gateway(2, { hedge: { enabled: false } }, { propagateToUpstreams: true })
    a!.fault({ kind: 'status', status: 503 })
    b!.fault({ kind: 'status', status: 503 })
    b!.fault(undefined)
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const parent = '00f067aa0ba902b7'
    // Both nodes may be picked first: the one that fails is whichever the pool tried first.
    const r = await s.rpc(call('eth_getTransactionByHash', [hash(1)]), {
      network: 'remote',
      headers: { traceparent: `00-${traceId}-${parent}-01` },
    })
    expect(r.status).toBe(200)
    const [span] = await waitFor((x) => x.name === 'rpc call' && x.traceId === traceId)
    expect(span).toBeDefined()
    expect(span!.parentSpanId).toBe(parent)
    expect(span!.service).toBe('chaingate')
    expect(span!.attributes).toMatchObject({
      'rpc.method': 'eth_getTransactionByHash',
      'chaingate.transport': 'http',
      'chaingate.network': 'remote',
      'chaingate.credits.charged': r.credits,
    })
    expect(span!.events.map((e) => e.name)).toEqual(expect.arrayContaining(['authorize', 'price', 'forward', 'settle']))
    const attempts = await waitFor((x) => x.name === 'upstream attempt' && x.parentSpanId === span!.spanId)
    expect(attempts.length).toBeGreaterThanOrEqual(1)
    // The node that answered got the attempt's own traceparent (same trace, the attempt as parent).
    const seen = [...a!.requests, ...b!.requests].map((q) => q.headers.traceparent).filter(Boolean)
    expect(seen.length).toBeGreaterThan(0)
    for (const t of seen) expect(String(t)).toContain(traceId)
  })

  it('a retry: the first node refuses, the second answers; attempts 1 and 2 under the call span', async () => {
    const {
      s,
      nodes: [a, b],
    } = await gateway(2, { hedge: { enabled: false } })
    a!.fault({ kind: 'status', status: 503 })
    b!.fault({ kind: 'status', status: 503 })
    // Whichever node the pool tries first fails once; the other answers.
    let first = true
    for (const n of [a!, b!]) {
      n.fault(undefined)
      n.answer((req) => {
        if (req.body.method !== 'eth_getBlockTransactionCountByHash') return undefined
        if (first) {
          first = false
          return { status: 503, body: 'down' }
        }
        return undefined
      })
    }
    const r = await s.rpc(call('eth_getBlockTransactionCountByHash', [hash(2)]), { network: 'remote' })
    expect(r.status).toBe(200)
    const [span] = await waitFor(
      (x) => x.name === 'rpc call' && x.attributes['rpc.method'] === 'eth_getBlockTransactionCountByHash',
    )
    await waitFor((x) => x.name === 'upstream attempt' && x.parentSpanId === span!.spanId, 2)
    const attempts = childrenOf(span!).sort(
      (x, y) => Number(x.attributes['chaingate.upstream.attempt']) - Number(y.attributes['chaingate.upstream.attempt']),
    )
    expect(attempts.map((x) => x.attributes['chaingate.upstream.kind'])).toEqual(['first', 'retry'])
    expect(attempts.map((x) => x.attributes['chaingate.upstream.outcome'])).toEqual(['failed', 'answer'])
    expect(new Set(attempts.map((x) => x.attributes['chaingate.upstream.node'])).size).toBe(2)
    // Repeated: answered by the cache, no attempt.
    await s.rpc(call('eth_getBlockTransactionCountByHash', [hash(2)]), { network: 'remote' })
    const [hit] = await waitFor((x) => x.attributes['chaingate.answer.source'] === 'cache')
    expect(hit).toBeDefined()
    expect(childrenOf(hit!)).toEqual([])
  })

  it('a hedged call: the slow node and the fast one both appear, the slow one lost', async () => {
    const {
      s,
      nodes: [a],
    } = await gateway(2, { hedge: { enabled: true, delayMs: 30 } })
    a!.fault({ kind: 'slow', ms: 600 })
    // Send until the slow node is tried first (selection rotates).
    for (let i = 0; i < 6; i++)
      await s.rpc(call('eth_getBalance', [`0x${'1'.repeat(40)}`, `0x${i + 1}`], i), { network: 'remote' })
    await waitFor((x) => x.attributes['chaingate.upstream.kind'] === 'hedge')
    const hedge = otlp.spans.find((x) => x.attributes['chaingate.upstream.kind'] === 'hedge')!
    const call_ = otlp.spans.find((x) => x.spanId === hedge.parentSpanId)!
    const siblings = childrenOf(call_)
    expect(siblings.map((x) => x.attributes['chaingate.upstream.outcome']).sort()).toEqual(['answer', 'lost'])
    expect(
      siblings.find((x) => x.attributes['chaingate.upstream.outcome'] === 'lost')!.attributes[
        'chaingate.upstream.node'
      ],
    ).toBe(a!.url.replace(/\/$/, ''))
  })

  it('a batch: one span, its upstream attempt as a child', async () => {
    const { s } = await gateway(1)
    const r = await s.rpc([call('eth_getBalance', [`0x${'2'.repeat(40)}`, 'latest'], 1), call('net_version', [], 2)], {
      network: 'remote',
    })
    expect(r.status).toBe(200)
    const [batch] = await waitFor((x) => x.name === 'rpc batch')
    expect(batch!.attributes).toMatchObject({ 'rpc.method': 'batch', 'chaingate.calls': 2 })
    const [attempt] = await waitFor((x) => x.name === 'upstream attempt' && x.parentSpanId === batch!.spanId)
    expect(attempt!.attributes['chaingate.upstream.outcome']).toBe('answer')
  })

  it('a WebSocket subscription: the eth_subscribe message and the event, under the upgrade traceparent', async () => {
    const {
      s,
      nodes: [a],
    } = await gateway(1)
    const traceId = 'aaf92f3577b34da6a3ce929d0e0e4736'
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/remote/ws/v3/${s.key.key}`, {
      headers: { traceparent: `00-${traceId}-1111111111111111-01` },
    })
    const inbox: any[] = []
    ws.on('message', (d) => inbox.push(JSON.parse(d.toString())))
    await new Promise((r, j) => ws.once('open', r).once('error', j))
    ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 7)))
    const until = async (p: () => boolean) => {
      for (let i = 0; i < 200 && !p(); i++) await new Promise((r) => setTimeout(r, 25))
    }
    await until(() => inbox.some((m) => m.id === 7))
    a!.notify('newHeads', { number: '0x2', hash: hash(9) })
    await until(() => inbox.some((m) => m.method === 'eth_subscription'))
    ws.close()
    const [msg] = await waitFor((x) => x.name === 'ws message' && x.attributes['rpc.method'] === 'eth_subscribe')
    expect(msg!.traceId).toBe(traceId)
    expect(msg!.attributes['chaingate.transport']).toBe('ws')
    const [event] = await waitFor((x) => x.name === 'eth_subscription')
    expect(event!.traceId).toBe(traceId)
    expect(event!.attributes).toMatchObject({
      'chaingate.subscription.kind': 'newHeads',
      'chaingate.subscription.id': inbox.find((m) => m.id === 7).result,
    })
  })

  it('OTEL_TRACES_EXPORTER=otlp turns tracing on without a config change, with OTEL_RESOURCE_ATTRIBUTES', async () => {
    const env = {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_SERVICE_NAME: 'edge-1',
      OTEL_RESOURCE_ATTRIBUTES: 'k8s.pod.name=chaingate-7d9f,deployment.environment=prod',
    }
    Object.assign(process.env, env)
    try {
      const { s } = await gateway(1, {}, null)
      await s.rpc(call('eth_getBalance', [`0x${'4'.repeat(40)}`, 'latest']), { network: 'remote' })
    } finally {
      for (const k of Object.keys(env)) delete process.env[k]
    }
    const [span] = await waitFor((x) => x.name === 'rpc call' && x.attributes['rpc.method'] === 'eth_getBalance')
    expect(span?.service).toBe('edge-1')
    expect(span?.resource).toMatchObject({ 'k8s.pod.name': 'chaingate-7d9f', 'deployment.environment': 'prod' })
  })

  it("a client's method name is exported cut to 64 characters, with or without a valid key", async () => {
    const { s } = await gateway(1)
    const huge = `eth_${'x'.repeat(200_000)}`
    const traceId = 'bbf92f3577b34da6a3ce929d0e0e4736'
    const headers = { traceparent: `00-${traceId}-2222222222222222-01` }
    expect((await s.rpc(call(huge), { network: 'remote', key: 'f'.repeat(32), headers })).status).toBe(401)
    expect((await s.rpc(call(huge), { network: 'remote', headers })).status).toBe(200)
    const found = await waitFor((x) => x.traceId === traceId && x.name === 'rpc call', 2)
    expect(found).toHaveLength(2)
    for (const span of found) expect(span.attributes['rpc.method']).toBe(huge.slice(0, 64))
  })

  it("keyless calls cannot force traces with a sampled traceparent; a valid key's client still can", async () => {
    const { s } = await gateway(1, {}, { sampleRatio: 0 })
    const traceparent = (i: number) => `00-${'c'.repeat(28)}${String(i).padStart(4, '0')}-3333333333333333-01`
    for (let i = 0; i < 20; i++) {
      const r = await s.rpc(call('eth_chainId', [], i), {
        network: 'remote',
        key: i % 2 ? 'e'.repeat(32) : 'not-a-key',
        headers: { traceparent: traceparent(i) },
      })
      expect(r.status).toBe(401)
    }
    const r = await s.rpc(call('eth_chainId', [], 99), {
      network: 'remote',
      headers: { traceparent: traceparent(99) },
    })
    expect(r.status).toBe(200)
    const [valid] = await waitFor((x) => x.traceId === `${'c'.repeat(28)}0099` && x.name === 'rpc call')
    expect(valid?.attributes['chaingate.network']).toBe('remote')
    // Exported in the same batch or an earlier one: none of the refused calls.
    await new Promise((r) => setTimeout(r, 200))
    expect(otlp.spans.filter((x) => x.traceId.startsWith('c'.repeat(28)) && x.traceId !== valid!.traceId)).toEqual([])
  })

  it('off (the default): calls export nothing', async () => {
    const { s } = await gateway(1, {}, null)
    const r = await s.rpc(call('eth_getBalance', [`0x${'3'.repeat(40)}`, 'latest']), { network: 'remote' })
    expect(r.status).toBe(200)
    await new Promise((r) => setTimeout(r, 300))
    expect(otlp.spans.filter((x) => x.attributes['chaingate.network'] === 'remote')).toEqual([])
  })
})
