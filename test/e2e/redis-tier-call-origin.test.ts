/**
 * A call the shared Redis cache tier answers late (a miss found out over a slow link) still goes to its node as
 * that call's (src/upstreams/pool/pool.ts, CallOrigin): its upstream attempt is a child of its span, and its deadline
 * counts the time it already waited for Redis (docs/caching.md, docs/deploy.md "Traces"). Real Redis behind a
 * TCP proxy that delays Redis's answers; the node is a fake that answers when the test says.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { startOtlpReceiver, type OtlpReceiver } from './helpers/otlp-receiver.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { describeWithServices, redisUrl } from '../support/services.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'

const CHAIN = 31352
const ROOMY_CHAIN = 31353
const TOTAL_TIMEOUT_MS = 1000
/** The hash the node answers only after this long (within its own timeout, past the call's deadline). */
const SLOW_HASH = `0x${'5'.repeat(64)}`
const SLOW_NODE_MS = 800
const REDIS_LAG_MS = 400
const hash = (i: number) => `0x${i.toString(16).padStart(64, '0')}`

describeWithServices(['redis'], 'a call answered by the Redis cache tier with a promise', () => {
  let otlp: OtlpReceiver
  let node: FakeNode
  let roomyNode: FakeNode
  let proxy: TcpProxy
  let s: TestServer

  beforeAll(async () => {
    process.env.OTEL_BSP_SCHEDULE_DELAY = '20'
    otlp = await startOtlpReceiver()
    proxy = await startTcpProxy(redisUrl)
    node = await startFakeNode(`0x${CHAIN.toString(16)}`, (req) => {
      if (req.body?.method !== 'eth_getTransactionByHash' || req.body.params?.[0] !== SLOW_HASH) return undefined
      const answer = JSON.stringify({ jsonrpc: '2.0', id: req.body.id, result: null })
      return {
        raw: (res) =>
          void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(answer), SLOW_NODE_MS),
      }
    })
    roomyNode = await startFakeNode(`0x${ROOMY_CHAIN.toString(16)}`)
    s = await startTestServer({
      networks: [
        {
          name: 'remote',
          chainId: CHAIN,
          upstreams: [{ url: node.url, timeoutMs: 5000 }],
          upstreamPolicy: { totalTimeoutMs: TOTAL_TIMEOUT_MS },
        },
        // A roomy deadline for the span test: a loaded machine cannot turn its answer into a 504.
        { name: 'roomy', chainId: ROOMY_CHAIN, upstreams: [{ url: roomyNode.url }] },
      ],
      redis: {
        url: `redis://127.0.0.1:${proxy.port}`,
        keyPrefix: `test:call-origin:${randomBytes(5).toString('hex')}:`,
        commandTimeoutMs: 5000,
      },
      tracing: { enabled: true, endpoint: otlp.endpoint, protocol: 'http/json', sampleRatio: 1 },
    })
    // Credits leased and the node's chain checked before Redis slows down: only the cache lookup waits on it.
    expect((await s.rpc(call('eth_getTransactionByHash', [hash(1)]), { network: 'remote' })).status).toBe(200)
    proxy.lag(REDIS_LAG_MS)
  })
  afterAll(async () => {
    delete process.env.OTEL_BSP_SCHEDULE_DELAY
    await s?.stop()
    await proxy?.close()
    await node?.close()
    await roomyNode?.close()
    await otlp?.close()
  })

  it('the upstream attempt is recorded under the call span', async () => {
    const traceId = randomBytes(16).toString('hex')
    const started = Date.now()
    const r = await s.rpc(call('eth_getTransactionByHash', [hash(2)]), {
      network: 'roomy',
      headers: { traceparent: `00-${traceId}-${'1'.repeat(16)}-01` },
    })
    expect(r.status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(REDIS_LAG_MS - 5) // the Redis tier was asked first
    const [span] = await otlp.waitFor((x) => x.name === 'rpc call' && x.traceId === traceId)
    expect(span).toBeDefined()
    const [attempt] = await otlp.waitFor((x) => x.name === 'upstream attempt' && x.parentSpanId === span!.spanId)
    expect(attempt).toMatchObject({ traceId, attributes: { 'chaingate.upstream.attempt': 1 } })
  })

  it("the call's deadline counts the time it waited for Redis", async () => {
    const started = Date.now()
    const r = await s.rpc(call('eth_getTransactionByHash', [SLOW_HASH]), { network: 'remote' })
    const took = Date.now() - started
    // Sent after ~400 ms, the node answers ~800 ms later: past the 1000 ms deadline counted from arrival (a
    // deadline counted from the send would have let the answer through, at ~1200 ms).
    expect(r.status).toBe(504)
    // The call's deadline (1000 ms) or the attempt's own budget, cut to what was left of it when it was sent.
    const budget = Number(/no answer within (\d+) ms/.exec(r.json().error.message)?.[1])
    expect(budget).toBeLessThanOrEqual(TOTAL_TIMEOUT_MS)
    expect(took).toBeGreaterThanOrEqual(TOTAL_TIMEOUT_MS - 10)
    expect(took).toBeLessThan(REDIS_LAG_MS + SLOW_NODE_MS)
  })
})
