import { describe, expect, it } from 'vitest'
import { createMetrics } from './metrics.ts'

describe('metrics', () => {
  it('counts calls by network, method and outcome, folding unknown methods into "other"', async () => {
    const m = createMetrics(['eth_blockNumber'])
    m.call('a', 'eth_blockNumber', 'ok')
    m.call('a', 'eth_blockNumber', 'ok')
    m.call('a', 'eth_blockNumber', 'error')
    m.call('b', 'eth_whatever', 'ok')
    m.call('b', '(refused)', 'http_401')
    // A client's name that merely looks like an internal label is not one.
    m.call('b', `(${'x'.repeat(100)}`, 'error')
    m.call('b', '(fake)', 'error')
    // Back to an earlier network and method, then the same method on another network.
    m.call('a', 'eth_blockNumber', 'ok')
    m.call('c', 'eth_blockNumber', 'ok')
    const text = await m.registry.metrics()
    expect(text).toContain('# TYPE chaingate_requests_total counter')
    expect(text).toContain('chaingate_requests_total{network="a",method="eth_blockNumber",outcome="ok"} 3')
    expect(text).toContain('chaingate_requests_total{network="c",method="eth_blockNumber",outcome="ok"} 1')
    expect(text).toContain('chaingate_requests_total{network="a",method="eth_blockNumber",outcome="error"} 1')
    expect(text).toContain('chaingate_requests_total{network="b",method="other",outcome="ok"} 1')
    expect(text).toContain('chaingate_requests_total{network="b",method="(refused)",outcome="http_401"} 1')
    expect(text).not.toContain('eth_whatever')
    expect(text).not.toContain('xxx')
    expect(text).not.toContain('(fake)')
    expect(text).toContain('chaingate_requests_total{network="b",method="other",outcome="error"} 2')
  })

  it('keeps a cumulative latency histogram with sum and count', async () => {
    const m = createMetrics([])
    m.upstreamLatency('a', 0.0005)
    m.upstreamLatency('a', 0.003)
    m.upstreamLatency('a', 0.003)
    m.upstreamLatency('a', 60)
    const text = await m.registry.metrics()
    expect(text).toContain('# TYPE chaingate_upstream_latency_seconds histogram')
    expect(text).toContain('chaingate_upstream_latency_seconds_bucket{le="0.001",network="a"} 1')
    expect(text).toContain('chaingate_upstream_latency_seconds_bucket{le="0.0025",network="a"} 1')
    expect(text).toContain('chaingate_upstream_latency_seconds_bucket{le="0.005",network="a"} 3')
    expect(text).toContain('chaingate_upstream_latency_seconds_bucket{le="30",network="a"} 3')
    expect(text).toContain('chaingate_upstream_latency_seconds_bucket{le="+Inf",network="a"} 4')
    expect(text).toContain('chaingate_upstream_latency_seconds_count{network="a"} 4')
    expect(text).toMatch(/chaingate_upstream_latency_seconds_sum\{network="a"\} 60\.006/)
  })

  it('sums credits per network and counts WebSocket connections; a zero charge adds no series', async () => {
    const m = createMetrics([])
    m.credits('a', 80)
    m.credits('a', 5)
    m.credits('b', 0)
    m.wsConnections(1)
    m.wsConnections(-1)
    const text = await m.registry.metrics()
    expect(text).toContain('chaingate_credits_charged_total{network="a"} 85')
    expect(text).not.toContain('chaingate_credits_charged_total{network="b"}')
    expect(text).toContain('chaingate_ws_connections_opened_total 1')
    expect(text).toContain('nodejs_heap_size_used_bytes') // Node's default metrics are still there
  })
})
