/**
 * The log lines an on-call reads (docs/upstreams.md, "Log lines"), and the recovery from a chain replaced under the
 * gateway: a real anvil restarted without its state (same chain id, lower head) — alone, and behind both nodes of a
 * network — is logged and followed (the key's monotonic eth_blockNumber follows the new chain instead of staying at
 * a block that no longer exists); a node going down and coming back, lagging and catching up; a drain and the end
 * of the shutdown. One structured line each, with the network and node, no secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { drainThenStop } from '../../src/app/drain.ts'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { waitFor } from './helpers/process.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'

const CHAIN = 31391
const PAIR = 31393
const OTHER = 31392
let solo: RunningAnvil
let shared: RunningAnvil
let ahead: RunningAnvil
let behind: RunningAnvil
let proxies: TcpProxy[]
let s: TestServer
const policy = { headPollMs: 1000, maxLagBlocks: 5, hedge: { enabled: false } }

const anvil = (chainId: number, port = 0) => startAnvil({ chainId, port, blockTimeSeconds: 0 })
const portOf = (a: RunningAnvil) => Number(new URL(a.url).port)
async function mine(url: string, blocks: number) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: [`0x${blocks.toString(16)}`] }),
  })
  expect(res.status).toBe(200)
}
const blockNumber = async (network: string) =>
  Number.parseInt((await s.rpc(call('eth_blockNumber'), { network })).json().result, 16)
const lines = (msg: string, network: string) => s.logs.filter((l) => l.msg === msg && l.network === network)
const until = (check: () => Promise<boolean> | boolean, what: string) => waitFor(check, 20_000, what, 100)

beforeAll(async () => {
  ;[solo, shared, ahead, behind] = await Promise.all([anvil(CHAIN), anvil(PAIR), anvil(OTHER), anvil(OTHER)])
  proxies = await Promise.all([startTcpProxy(shared.url), startTcpProxy(shared.url), startTcpProxy(ahead.url)])
  s = await startTestServer({
    networks: [
      { name: 'solo', chainId: CHAIN, upstreams: [{ url: solo.url }], upstreamPolicy: policy },
      {
        name: 'pair',
        chainId: PAIR,
        upstreams: proxies.slice(0, 2).map((p) => ({ url: p.url })),
        upstreamPolicy: policy,
      },
      {
        name: 'lag',
        chainId: OTHER,
        upstreams: [{ url: proxies[2]!.url }, { url: behind.url }],
        upstreamPolicy: policy,
      },
    ],
  })
}, 90_000)
afterAll(async () => {
  await s?.stop()
  await Promise.all((proxies ?? []).map((p) => p.close()))
  await Promise.all([solo, shared, ahead, behind].map((a) => a?.stop()))
})

describe('a chain replaced under the gateway (same chain id, lower head)', () => {
  it('one node: logged, and the key is served the new chain from its new head', async () => {
    await mine(solo.url, 40)
    await until(async () => (await blockNumber('solo')) === 40, 'block 40 served')
    await until(() => s.parts.pools.get('solo')!.heads.latest() === 40, 'the tip at 40')
    const port = portOf(solo)
    await solo.stop()
    solo = await anvil(CHAIN, port)
    await mine(solo.url, 3)
    await until(async () => (await blockNumber('solo')) === 3, 'the new chain served')
    await until(() => s.parts.pools.get('solo')!.heads.latest() === 3, 'the tip at the new head')
    const [moved] = lines('node head moved backwards', 'solo')
    expect(moved).toMatchObject({ level: 40, upstream: solo.url, from: 40, to: expect.any(Number) })
    expect(
      lines("network head reset: every node's head moved below the served tip (the chain was replaced)", 'solo'),
    ).toHaveLength(1)
    // Blocks of the old chain are not served from the cache: block 2 is the new chain's.
    const block = (await s.rpc(call('eth_getBlockByNumber', ['0x2', false]), { network: 'solo' })).json().result
    const direct = await fetch(solo.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call('eth_getBlockByNumber', ['0x2', false])),
    })
    expect(block.hash).toBe(((await direct.json()) as { result: { hash: string } }).result.hash)
    expect((await s.rpc(call('eth_blockNumber'), { network: 'solo' })).json().result).toBe('0x3')
  }, 90_000)

  it('both nodes of a network: every node going back logged, one reset, the key follows the new chain', async () => {
    await mine(shared.url, 30)
    await until(async () => (await blockNumber('pair')) === 30, 'block 30 served')
    // The nodes' heads are polled (once a second here): the tip has seen block 30 before the chain goes.
    await until(() => s.parts.pools.get('pair')!.heads.latest() === 30, 'the tip at 30')
    const port = portOf(shared)
    await shared.stop()
    shared = await anvil(PAIR, port)
    await mine(shared.url, 2)
    await until(async () => (await blockNumber('pair')) === 2, 'the new chain served')
    expect(
      lines('node head moved backwards', 'pair')
        .map((l) => l.upstream)
        .sort(),
    ).toEqual(
      proxies
        .slice(0, 2)
        .map((p) => p.url)
        .sort(),
    )
    expect(
      lines("network head reset: every node's head moved below the served tip (the chain was replaced)", 'pair'),
    ).toHaveLength(1)
  }, 90_000)
})

describe('log lines of node state changes, drain and shutdown', () => {
  it('lagging, caught up, down, back; then draining and shutdown complete', async () => {
    await mine(ahead.url, 20)
    await blockNumber('lag')
    await until(() => lines('node lagging', 'lag').length === 1, 'node lagging')
    expect(lines('node lagging', 'lag')[0]).toMatchObject({ level: 40, upstream: behind.url, lagBlocks: 20 })
    await mine(behind.url, 20)
    await blockNumber('lag')
    await until(() => lines('node caught up', 'lag').length === 1, 'node caught up')

    await proxies[2]!.cut()
    for (let i = 0; i < 4; i++) await blockNumber('lag')
    await until(() => lines('node down', 'lag').length === 1, 'node down')
    expect(lines('node down', 'lag')[0]).toMatchObject({ level: 40, upstream: proxies[2]!.url, state: 'down' })
    await proxies[2]!.restore()
    await until(async () => {
      await blockNumber('lag')
      return lines('node back', 'lag').length === 1
    }, 'node back')
    expect(lines('node back', 'lag')[0]).toMatchObject({ level: 30, upstream: proxies[2]!.url, previous: 'down' })

    await drainThenStop(s.app, 'SIGTERM')
    const drain = s.logs.find((l) => String(l.msg).startsWith('draining:'))
    const done = s.logs.find((l) => l.msg === 'shutdown complete')
    expect(drain).toMatchObject({ level: 30, signal: 'SIGTERM' })
    expect(done).toMatchObject({ level: 30, signal: 'SIGTERM', ms: expect.any(Number) })
    expect(s.logs.findIndex((l) => l.msg === 'shutdown complete')).toBeGreaterThan(
      s.logs.findIndex((l) => String(l.msg).startsWith('draining:')),
    )
  }, 90_000)
})
