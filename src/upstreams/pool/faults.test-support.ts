/**
 * What the pool's fault tests share: scriptable fake nodes (the e2e tests' fake node, real HTTP servers) on chain
 * 0x7a6d and pools over them with quick head polling, all closed after each test.
 */
import { afterEach } from 'vitest'
import { startFakeNode, type FakeNode } from '../../../test/support/fake-node.ts'
import {
  createUpstreamPool,
  DEFAULT_UPSTREAM_POLICY,
  type UpstreamEndpoint,
  type UpstreamPolicy,
  type UpstreamPool,
} from './pool.ts'

export const CHAIN = '0x7a6d'
export const call = (method: string, params: unknown[] = [], id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params })
export const resultOf = (body: Buffer) => JSON.parse(body.toString()).result
export const servedBy = (p: UpstreamPool, n: FakeNode) =>
  p.status().find((s) => s.upstream === n.url.replace(/\/$/, ''))!

/** Fake nodes and pools for one test file; `nodes` lists this test's nodes in the order they were made. */
export function faultHarness() {
  const nodes: FakeNode[] = []
  const pools: UpstreamPool[] = []
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()))
    await Promise.all(nodes.splice(0).map((n) => n.close()))
  })
  const fake = async () => {
    const n = await startFakeNode(CHAIN)
    nodes.push(n)
    return n
  }
  const pool = async (
    endpoints: UpstreamEndpoint[],
    policy: Partial<UpstreamPolicy> = {},
    timeoutMs = 5000,
    connections?: number,
  ) => {
    const p = createUpstreamPool('net', endpoints, {
      timeoutMs,
      ...(connections !== undefined ? { connections } : {}),
      chainId: 31341,
      policy: { ...DEFAULT_UPSTREAM_POLICY, headPollMs: 200, ...policy },
    })
    pools.push(p)
    await p.verifyChainId()
    return p
  }
  return { nodes, fake, pool }
}
