/**
 * Filters on a network of two real anvil nodes (docs/upstreams.md, "Filters"): each filter is used only on the node
 * that created it, however many times it is polled (rotation alone would send every other poll to the other node,
 * which answers "filter not found"); over HTTP, in batches, over WebSocket and through viem; a forged id and a
 * dead node answer the node's own "filter not found", free (docs/errors.md, FILTER_NOT_FOUND).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createPublicClient, http } from 'viem'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { decodeFilterId, encodeFilterId, nodeFingerprint } from '../../src/upstreams/pool/filter-ids.ts'
import { redactUrl } from '../../src/upstreams/pool/pool.ts'
import { startFakeNode } from '../support/fake-node.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN = 31341
const FROM = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' // anvil's first unlocked account
/** Init code that emits one LOG0 and deploys nothing: a transaction with one log. */
const LOG_ONCE = '0x60006000a000'
const FILTER_NOT_FOUND = { code: -32000, message: 'filter not found' }
const QUANTITY = /^0x[1-9a-f][0-9a-f]*$/

const atNode = async (node: { url: string }, method: string, params: unknown[] = []) => {
  const res = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(call(method, params)),
  })
  const body = (await res.json()) as { result?: any; error?: unknown }
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`)
  return body.result
}
const mine = (node: RunningAnvil, n: number) => atNode(node, 'anvil_mine', [`0x${n.toString(16)}`])
const hashesOf = async (node: RunningAnvil, from: number, to: number) => {
  const out: string[] = []
  for (let b = from; b <= to; b++)
    out.push((await atNode(node, 'eth_getBlockByNumber', [`0x${b.toString(16)}`, false])).hash)
  return out
}
const heightOf = async (node: RunningAnvil) => Number(await atNode(node, 'eth_blockNumber'))
/**
 * A block filter made on the node at `position` directly, with the id the gateway would have handed out for it
 * (the scheme is stable and documented): a filter on a node of the test's choice, whatever selection would pick.
 */
const filterOn = async (nodes: { url: string }[], position: number, owner: string) =>
  encodeFilterId(
    position,
    nodeFingerprint('remote', redactUrl(new URL(nodes[position]!.url))),
    await atNode(nodes[position]!, 'eth_newBlockFilter'),
    owner,
  )

async function twoNodes(): Promise<{
  nodes: RunningAnvil[]
  s: TestServer
  key: string
  /** The key's id: the owner its filter ids are bound to. */
  keyId: string
  dataDir: string
  stop(): Promise<void>
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-filters-'))
  const nodes = await Promise.all([0, 1].map(() => startAnvil({ chainId: CHAIN, port: 0, blockTimeSeconds: 0 })))
  const s = await startTestServer({
    dataDir,
    networks: [
      {
        name: 'remote',
        chainId: CHAIN,
        upstreams: nodes.map((n) => ({ url: n.url })),
        // Infura does not serve it; anvil and geth do.
        methods: { allow: ['eth_newPendingTransactionFilter'] },
        // Independent chains mined unevenly: neither counts as lagging.
        upstreamPolicy: { maxLagBlocks: 1000 },
      },
    ],
    gateway: { operations: { healthCacheMs: 0 } },
  })
  const { key } = await s.newKey('dev')
  return {
    nodes,
    s,
    key: key.key,
    keyId: key.id,
    dataDir,
    stop: async () => {
      await Promise.all([s.stop(), ...nodes.map((n) => n.stop())])
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

let env: Awaited<ReturnType<typeof twoNodes>>
beforeAll(async () => {
  env = await twoNodes()
}, 60_000)
afterAll(async () => env?.stop())

const rpc = (body: unknown) => env.s.rpc(body, { network: 'remote', key: env.key })
const result = async (method: string, params: unknown[] = [], id = 1) => {
  const r = await rpc(call(method, params, id))
  expect(r.status).toBe(200)
  const body = r.json()
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`)
  return body.result
}
const nodeOf = (id: string) => env.nodes[decodeFilterId(id, env.keyId)!.position]!
const otherThan = (node: RunningAnvil) => env.nodes.find((n) => n !== node)!

describe('filters on a network of two nodes', () => {
  it('ids are QUANTITY strings naming the node that created them, which holds the filter under its own id', async () => {
    const ids: string[] = []
    for (let i = 0; i < 6; i++) ids.push(await result('eth_newBlockFilter'))
    for (const id of ids) {
      expect(id).toMatch(QUANTITY)
      const d = decodeFilterId(id, env.keyId)!
      expect(d.fingerprint).toBe(nodeFingerprint('remote', redactUrl(new URL(env.nodes[d.position]!.url))))
      expect(await atNode(env.nodes[d.position]!, 'eth_getFilterChanges', [d.nodeId])).toEqual([])
    }
    for (const id of ids) expect(await result('eth_uninstallFilter', [id])).toBe(true)
  })

  it('a block filter polled 12 times sees exactly its own node\'s new blocks, never "filter not found"', async () => {
    for (let round = 0; round < 2; round++) {
      const id = await result('eth_newBlockFilter')
      const node = nodeOf(id)
      const start = await heightOf(node)
      await mine(node, 2)
      await mine(otherThan(node), 3)
      const seen: string[] = []
      for (let i = 0; i < 12; i++) seen.push(...(await result('eth_getFilterChanges', [id], i)))
      expect(seen).toEqual(await hashesOf(node, start + 1, start + 2))
      expect(await result('eth_uninstallFilter', [id])).toBe(true)
      expect(await result('eth_uninstallFilter', [id])).toBe(false) // the node's own answer: it is gone
    }
  })

  it('a log filter: changes and eth_getFilterLogs from its node, however often asked', async () => {
    const id = await result('eth_newFilter', [{ fromBlock: 'latest' }])
    const node = nodeOf(id)
    const tx = await atNode(node, 'eth_sendTransaction', [{ from: FROM, data: LOG_ONCE }])
    // a log the filter must not see
    await atNode(otherThan(node), 'eth_sendTransaction', [{ from: FROM, data: LOG_ONCE }])
    const changes: any[] = []
    for (let i = 0; i < 8; i++) changes.push(...(await result('eth_getFilterChanges', [id], i)))
    expect(changes.map((l) => l.transactionHash)).toEqual([tx])
    for (let i = 0; i < 6; i++)
      expect((await result('eth_getFilterLogs', [id], i)).map((l: any) => l.transactionHash)).toEqual([tx])
    expect(await result('eth_uninstallFilter', [id])).toBe(true)
  })

  it('a pending-transaction filter sees the transactions sent to its node', async () => {
    const id = await result('eth_newPendingTransactionFilter')
    const node = nodeOf(id)
    const tx = await atNode(node, 'eth_sendTransaction', [{ from: FROM, to: FROM, value: '0x1' }])
    await atNode(otherThan(node), 'eth_sendTransaction', [{ from: FROM, to: FROM, value: '0x2' }])
    const seen: string[] = []
    for (let i = 0; i < 8; i++) seen.push(...(await result('eth_getFilterChanges', [id], i)))
    expect(seen).toEqual([tx])
    expect(await result('eth_uninstallFilter', [id])).toBe(true)
  })

  it('a forged or unknown id gets the node\'s "filter not found" from the gateway, free; no node is asked', async () => {
    const real = await result('eth_newBlockFilter')
    const d = decodeFilterId(real, env.keyId)!
    const forged = [
      d.nodeId, // the node's own id, as another gateway (or the node) would hand it out
      '0x1',
      '0xc00ffff1234', // a well-formed id with a fingerprint of no node
      encodeFilterId(7, d.fingerprint, d.nodeId, env.keyId), // a position the network does not have
      '0xnot-hex',
      'filter',
      `0x${'f'.repeat(2000)}`,
    ]
    for (const [i, id] of forged.entries())
      for (const method of ['eth_getFilterChanges', 'eth_getFilterLogs', 'eth_uninstallFilter']) {
        const r = await rpc(call(method, [id], i))
        expect(r.status).toBe(200)
        expect(r.json()).toEqual({ jsonrpc: '2.0', id: i, error: FILTER_NOT_FOUND })
        expect(r.credits).toBe(0)
      }
    // Not an id at all: the node judges the parameters (its invalid-params error, charged like any node answer).
    const r = await rpc(call('eth_getFilterChanges', [12]))
    expect(r.json().error.code).toBe(-32602)
    expect(await result('eth_uninstallFilter', [real])).toBe(true)
  })

  it('a batch mixing filter calls for both nodes with other calls: each answered in place, with its id', async () => {
    const [a, b] = [await filterOn(env.nodes, 0, env.keyId), await filterOn(env.nodes, 1, env.keyId)]
    // polled by a notification (in parallel with the others: its own filter)
    const c = await result('eth_newBlockFilter')
    const [startA, startB] = [await heightOf(env.nodes[0]!), await heightOf(env.nodes[1]!)]
    await mine(env.nodes[0]!, 1)
    await mine(env.nodes[1]!, 2)
    const batch = [
      call('eth_getFilterChanges', [a], 'x'),
      call('eth_chainId', [], 7),
      call('eth_getFilterChanges', [b], 'x'), // a repeated client id
      call('eth_getFilterChanges', ['0xc00ffff1234'], 9),
      call('eth_newBlockFilter', [], 10),
      { jsonrpc: '2.0', method: 'eth_getFilterChanges', params: [c] }, // a notification: run, no answer
      call('eth_blockNumber', [], 11),
    ]
    const r = await rpc(batch)
    expect(r.status).toBe(200)
    const out = r.json()
    expect(out.map((e: any) => e.id)).toEqual(['x', 7, 'x', 9, 10, 11])
    // Ends with the blocks just mined on its node (a block an earlier test's transaction made late may come first).
    expect(out[0].result.slice(-1)).toEqual(await hashesOf(env.nodes[0]!, startA + 1, startA + 1))
    expect(out[1].result).toBe(`0x${CHAIN.toString(16)}`)
    expect(out[2].result.slice(-2)).toEqual(await hashesOf(env.nodes[1]!, startB + 1, startB + 2))
    expect(out[3].error).toEqual(FILTER_NOT_FOUND)
    expect(out[4].result).toMatch(QUANTITY)
    expect(out[5].result).toMatch(/^0x[0-9a-f]+$/)
    // The created filter works; the notification ran (its filter's blocks were taken); the forged call cost nothing.
    expect(await result('eth_getFilterChanges', [out[4].result])).toEqual([])
    expect(await result('eth_getFilterChanges', [c])).toEqual([])
    expect(r.credits).toBe(140 + 5 + 140 + 0 + 80 + 140 + 80)
    for (const id of [a, b, c, out[4].result]) expect(await result('eth_uninstallFilter', [id])).toBe(true)
  })

  it('the filter calls of a batch run in its order, as a node runs a batch: poll, uninstall, poll', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await result('eth_newBlockFilter')
      await mine(nodeOf(id), 1)
      const out = (
        await rpc([
          call('eth_getFilterChanges', [id], 1),
          call('eth_uninstallFilter', [id], 2),
          call('eth_getFilterChanges', [id], 3),
        ])
      ).json()
      expect(out[0].result).toHaveLength(1)
      expect(out[1]).toEqual({ jsonrpc: '2.0', id: 2, result: true })
      expect(out[2]).toEqual({ jsonrpc: '2.0', id: 3, error: FILTER_NOT_FOUND }) // the node's own answer now
    }
  })

  it("over WebSocket: single calls and a batch reach the filter's node", async () => {
    const ws = new WebSocket(env.s.endpoint('remote', env.key).replace('http', 'ws').replace('/v3/', '/ws/v3/'))
    const inbox: any[] = []
    const waiters: (() => void)[] = []
    ws.on('message', (m) => {
      inbox.push(JSON.parse(m.toString()))
      waiters.splice(0).forEach((w) => w())
    })
    await new Promise((r, j) => ws.once('open', r).once('error', j))
    const ask = async (body: any): Promise<any> => {
      ws.send(JSON.stringify(body))
      for (;;) {
        const i = inbox.findIndex((m) => (Array.isArray(body) ? Array.isArray(m) : m.id === body.id))
        if (i >= 0) return inbox.splice(i, 1)[0]
        await new Promise<void>((r) => waiters.push(r))
      }
    }
    try {
      const id = (await ask(call('eth_newBlockFilter', [], 1))).result
      expect(id).toMatch(QUANTITY)
      const node = nodeOf(id)
      const start = await heightOf(node)
      await mine(node, 1)
      await mine(otherThan(node), 1)
      const seen: string[] = []
      for (let i = 0; i < 8; i++) {
        const answer = await ask(call('eth_getFilterChanges', [id], 100 + i))
        expect(answer.error).toBeUndefined()
        seen.push(...answer.result)
      }
      expect(seen).toEqual(await hashesOf(node, start + 1, start + 1))
      const batch = await ask([
        call('eth_getFilterChanges', [id], 1),
        call('eth_getFilterLogs', ['0x1'], 2),
        call('eth_uninstallFilter', [id], 3),
      ])
      expect(batch).toEqual([
        { jsonrpc: '2.0', id: 1, result: [] },
        { jsonrpc: '2.0', id: 2, error: FILTER_NOT_FOUND },
        { jsonrpc: '2.0', id: 3, result: true },
      ])
      expect((await ask(call('eth_getFilterChanges', ['0xc00ffff1234'], 5))).error).toEqual(FILTER_NOT_FOUND)
    } finally {
      ws.close()
    }
  })

  it('viem: createBlockFilter / createEventFilter and getFilterChanges through the gateway', async () => {
    const client = createPublicClient({ transport: http(env.s.endpoint('remote', env.key)) })
    const filter = await client.createBlockFilter()
    const node = nodeOf(filter.id)
    const start = await heightOf(node)
    await mine(node, 3)
    await mine(otherThan(node), 1)
    const seen: string[] = []
    for (let i = 0; i < 10; i++) seen.push(...(await client.getFilterChanges({ filter })))
    expect(seen).toEqual(await hashesOf(node, start + 1, start + 3))
    expect(await client.uninstallFilter({ filter })).toBe(true)

    const events = await client.createEventFilter()
    const tx = await atNode(nodeOf(events.id), 'eth_sendTransaction', [{ from: FROM, data: LOG_ONCE }])
    const logs = []
    for (let i = 0; i < 6; i++) logs.push(...(await client.getFilterChanges({ filter: events })))
    expect(logs.map((l) => l.transactionHash)).toEqual([tx])
    expect((await client.getFilterLogs({ filter: events })).map((l) => l.transactionHash)).toEqual([tx])
    expect(await client.uninstallFilter({ filter: events })).toBe(true)
  })
})

describe('replicas and one-node networks', () => {
  // The same database (replicas share one): the same keys.
  const replica = (upstreams: RunningAnvil[]) =>
    startTestServer({
      dataDir: env.dataDir,
      networks: [
        {
          name: 'remote',
          chainId: CHAIN,
          upstreams: upstreams.map((n) => ({ url: n.url })),
          upstreamPolicy: { maxLagBlocks: 1000 },
        },
      ],
    })

  it('another replica with the same config serves the filters the first one created (nothing shared but the id)', async () => {
    const other = await replica(env.nodes)
    const swapped = await replica([...env.nodes].reverse())
    try {
      for (let i = 0; i < 4; i++) {
        const id = await result('eth_newBlockFilter')
        const node = nodeOf(id)
        const start = await heightOf(node)
        await mine(node, 1)
        const seen: string[] = []
        for (let j = 0; j < 6; j++)
          seen.push(
            ...(await other.rpc(call('eth_getFilterChanges', [id], j), { network: 'remote', key: env.key })).json()
              .result,
          )
        expect(seen).toEqual(await hashesOf(node, start + 1, start + 1))
        // A config listing the nodes in another order: the id's node is not at its position there, so it is not
        // sent to whichever node is; the client is told the filter is not found (and creates a new one).
        const r = await swapped.rpc(call('eth_getFilterChanges', [id]), { network: 'remote', key: env.key })
        expect(r.json().error).toEqual(FILTER_NOT_FOUND)
        expect(r.credits).toBe(0)
        await result('eth_uninstallFilter', [id])
      }
    } finally {
      await Promise.all([other.stop(), swapped.stop()])
    }
  })

  it('a network of one node binds its ids to their key too (the node gets its own id back)', async () => {
    const one = await replica([env.nodes[0]!])
    try {
      const id = (await one.rpc(call('eth_newBlockFilter'), { network: 'remote' })).json().result
      expect(id).toMatch(QUANTITY)
      const d = decodeFilterId(id, one.key.id)!
      expect(await atNode(env.nodes[0]!, 'eth_getFilterChanges', [d.nodeId])).toEqual([])
      expect((await one.rpc(call('eth_getFilterChanges', [id]), { network: 'remote' })).json().result).toEqual([])
      expect(one.parts.pools.get('remote')!.pinsFilters).toBe(true)
    } finally {
      await one.stop()
    }
  })
})

describe('the node holding a filter dies', () => {
  it('its filters answer "filter not found" (free), never from the other node; new filters go to the live node', async () => {
    const own = await twoNodes()
    try {
      const post = (body: unknown) => own.s.rpc(body, { network: 'remote', key: own.key })
      const dead = [await filterOn(own.nodes, 0, own.keyId)]
      const alive = [await filterOn(own.nodes, 1, own.keyId)]
      // served while its node lives
      expect((await post(call('eth_getFilterChanges', [dead[0]]))).json().result).toEqual([])
      await own.nodes[0]!.stop()
      // First the failed request, then (breaker open, or cooling down) without asking: the same answer each time.
      for (let i = 0; i < 8; i++)
        for (const [j, method] of ['eth_getFilterChanges', 'eth_getFilterLogs', 'eth_uninstallFilter'].entries()) {
          const r = await post(call(method, [dead[0]], i * 3 + j))
          expect(r.status).toBe(200)
          expect(r.json()).toEqual({ jsonrpc: '2.0', id: i * 3 + j, error: FILTER_NOT_FOUND })
          expect(r.credits).toBe(0)
        }
      const batch = (
        await post([call('eth_getFilterChanges', [dead[0]], 1), call('eth_getFilterChanges', [alive[0]], 2)])
      ).json()
      expect(batch).toEqual([
        { jsonrpc: '2.0', id: 1, error: FILTER_NOT_FOUND },
        { jsonrpc: '2.0', id: 2, result: [] },
      ])
      // Created from now on: on the live node only, and they work.
      for (let i = 0; i < 4; i++) {
        const id = (await post(call('eth_newBlockFilter'))).json().result
        expect(decodeFilterId(id, own.keyId)!.position).toBe(1)
        expect((await post(call('eth_getFilterChanges', [id]))).json().result).toEqual([])
      }
    } finally {
      await own.stop()
    }
  }, 60_000)
})

describe('the node holding a filter is out of rotation or hangs (a scriptable fake node beside anvil)', () => {
  it('refused by its provider (HTTP 429): "filter not found", free, and while backed off it is not even asked', async () => {
    const fake = await startFakeNode(`0x${CHAIN.toString(16)}`)
    const anvil = await startAnvil({ chainId: CHAIN, port: 0, blockTimeSeconds: 0 })
    const s = await startTestServer({
      networks: [
        {
          name: 'remote',
          chainId: CHAIN,
          upstreams: [{ url: fake.url, timeoutMs: 500 }, { url: anvil.url }],
          upstreamPolicy: { maxLagBlocks: 1000 },
        },
      ],
    })
    try {
      const post = (body: unknown) => s.rpc(body, { network: 'remote' })
      const onFake = encodeFilterId(0, nodeFingerprint('remote', redactUrl(new URL(fake.url))), '0x77', s.key.id)
      const onAnvil = await filterOn([fake, anvil], 1, s.key.id)
      const asked = () => fake.requests.filter((q) => q.body.method === 'eth_getFilterChanges')
      // Served by its node, which gets its own id back.
      const ok = await post(call('eth_getFilterChanges', [onFake]))
      expect(ok.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x1' }) // the fake node's default answer
      expect(ok.credits).toBe(140)
      expect(asked().map((q) => q.body.params)).toEqual([['0x77']])
      // The provider refuses: the call is not sent elsewhere; the node is out of rotation for a while.
      fake.fault({ kind: 'status', status: 429 })
      for (let i = 0; i < 3; i++) {
        const r = await post(call('eth_getFilterChanges', [onFake], i))
        expect(r.json()).toEqual({ jsonrpc: '2.0', id: i, error: FILTER_NOT_FOUND })
        expect(r.credits).toBe(0)
      }
      expect(asked()).toHaveLength(2) // the refused one; none while backed off
      // The other node's filters are not affected.
      expect((await post(call('eth_getFilterChanges', [onAnvil]))).json().result).toEqual([])
    } finally {
      await Promise.all([s.stop(), anvil.stop(), fake.close()])
    }
  }, 30_000)

  it('a node that does not answer: "filter not found" after its own timeout, not a 5xx', async () => {
    const fake = await startFakeNode(`0x${CHAIN.toString(16)}`)
    const anvil = await startAnvil({ chainId: CHAIN, port: 0, blockTimeSeconds: 0 })
    const s = await startTestServer({
      networks: [
        {
          name: 'remote',
          chainId: CHAIN,
          upstreams: [{ url: fake.url, timeoutMs: 400 }, { url: anvil.url }],
          upstreamPolicy: { maxLagBlocks: 1000 },
        },
      ],
    })
    try {
      const onFake = encodeFilterId(0, nodeFingerprint('remote', redactUrl(new URL(fake.url))), '0x77', s.key.id)
      fake.fault({ kind: 'hang' })
      const started = Date.now()
      const r = await s.rpc(call('eth_getFilterLogs', [onFake]), { network: 'remote' })
      expect(Date.now() - started).toBeLessThan(5000)
      expect(r.status).toBe(200)
      expect(r.json()).toEqual({ jsonrpc: '2.0', id: 1, error: FILTER_NOT_FOUND })
      expect(r.credits).toBe(0)
    } finally {
      fake.fault(undefined)
      await Promise.all([s.stop(), anvil.stop(), fake.close()])
    }
  }, 30_000)
})
