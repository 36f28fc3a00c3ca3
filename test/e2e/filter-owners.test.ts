/**
 * A filter belongs to the API key that created it (docs/upstreams.md, "Filters"): a key of another account that
 * learns its id gets exactly what an unknown id gets ("filter not found", free) from eth_getFilterChanges,
 * eth_getFilterLogs and eth_uninstallFilter, alone or in a batch, on an embedded devnet (one node, anvil's own ids)
 * and on a network of two nodes; the owner keeps using it. Real anvil behind a real gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN = 31342
const FROM = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' // anvil's first unlocked account
/** Init code that emits one LOG0 and deploys nothing. */
const LOG_ONCE = '0x60006000a000'
const NOT_FOUND = { code: -32000, message: 'filter not found' }
const QUANTITY = /^0x[1-9a-f][0-9a-f]*$/
const USES = ['eth_getFilterChanges', 'eth_getFilterLogs', 'eth_uninstallFilter']

let nodes: RunningAnvil[]
let s: TestServer
let keyA: string
let keyB: string

beforeAll(async () => {
  nodes = await Promise.all([0, 1].map(() => startAnvil({ chainId: CHAIN, port: 0, blockTimeSeconds: 0 })))
  s = await startTestServer({
    networks: [
      { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
      {
        name: 'remote',
        chainId: CHAIN,
        upstreams: nodes.map((n) => ({ url: n.url })),
        upstreamPolicy: { maxLagBlocks: 1000 },
      },
    ],
  })
  // Two accounts, one key each.
  keyA = (await s.newKey('team')).key.key
  keyB = (await s.newKey('team')).key.key
}, 60_000)
afterAll(async () => {
  await s?.stop()
  await Promise.all((nodes ?? []).map((n) => n.stop()))
}, 30_000)

describe.each(['devnet-a', 'remote'])('filters of another key on %s', (network) => {
  const as = (key: string, body: unknown) => s.rpc(body, { network, key })
  const result = async (key: string, method: string, params: unknown[] = []) => {
    const r = await as(key, call(method, params))
    expect(r.status, r.text).toBe(200)
    expect(r.json().error, r.text).toBeUndefined()
    return r.json().result
  }

  it('get "filter not found", free, like an unknown id; the owner still polls, reads and removes them', async () => {
    const blocks = await result(keyA, 'eth_newBlockFilter')
    const logs = await result(keyA, 'eth_newFilter', [{ fromBlock: 'latest' }])
    expect(blocks).toMatch(QUANTITY)
    expect(logs).toMatch(QUANTITY)
    // A log the filter sees (sent straight to every node, whichever holds the filter; the gateway signs nothing).
    for (const n of network === 'remote' ? nodes : [s.app.upstreamUrls.get('devnet-a')!])
      await fetch(n.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(call('eth_sendTransaction', [{ from: FROM, data: LOG_ONCE }])),
      })
    for (const id of [blocks, logs])
      for (const [i, method] of USES.entries()) {
        const foreign = await as(keyB, call(method, [id], i))
        const unknown = await as(keyB, call(method, ['0x1234abcd'], i))
        expect(foreign.status).toBe(200)
        expect(foreign.json()).toEqual({ jsonrpc: '2.0', id: i, error: NOT_FOUND })
        expect(foreign.json()).toEqual(unknown.json())
        expect(foreign.credits).toBe(unknown.credits)
        expect(foreign.credits).toBe(0)
      }
    // Still there for its owner: nothing was removed or drained by the other key.
    expect((await result(keyA, 'eth_getFilterChanges', [logs])).length).toBe(1)
    expect((await result(keyA, 'eth_getFilterLogs', [logs])).length).toBe(1)
    expect(Array.isArray(await result(keyA, 'eth_getFilterChanges', [blocks]))).toBe(true)
    expect(await result(keyA, 'eth_uninstallFilter', [blocks])).toBe(true)
    expect(await result(keyA, 'eth_uninstallFilter', [logs])).toBe(true)
  })

  it('a batch with a foreign filter id: that call gets "filter not found" in place, the rest is answered', async () => {
    const id = await result(keyA, 'eth_newBlockFilter')
    const own = await result(keyB, 'eth_newBlockFilter')
    const r = await as(keyB, [
      call('eth_chainId', [], 1),
      call('eth_getFilterChanges', [id], 2),
      call('eth_getFilterChanges', [own], 3),
      call('eth_uninstallFilter', [id], 4),
    ])
    expect(r.status).toBe(200)
    const [chainId, foreign, mine, removed] = r.json()
    expect(chainId.result).toMatch(QUANTITY)
    expect(foreign).toEqual({ jsonrpc: '2.0', id: 2, error: NOT_FOUND })
    expect(Array.isArray(mine.result)).toBe(true)
    expect(removed).toEqual({ jsonrpc: '2.0', id: 4, error: NOT_FOUND })
    expect(await result(keyA, 'eth_uninstallFilter', [id])).toBe(true)
    expect(await result(keyB, 'eth_uninstallFilter', [own])).toBe(true)
  })
})
