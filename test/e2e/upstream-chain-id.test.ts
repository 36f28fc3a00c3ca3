/**
 * Start-up validation of external upstreams: every node's eth_chainId must be the network's (docs/config.md,
 * `onChainIdMismatch`). A real anvil is the good node; the wrong or unreachable one is the scriptable fake node.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import WebSocket from 'ws'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { ChaingateError } from '../../src/errors/index.ts'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { runCli, tempDir, writeConfig } from './helpers/process.ts'
import { call, startTestServer } from './helpers/server.ts'

let anvil: RunningAnvil
let wrong: FakeNode
beforeAll(async () => {
  ;[anvil, wrong] = await Promise.all([
    startAnvil({ chainId: 31341, port: 0, blockTimeSeconds: 0 }),
    startFakeNode('0x3e7'),
  ])
})
afterAll(async () => {
  await anvil?.stop()
  await wrong?.close()
})

/** The fake node's URL with credentials a provider URL would carry: user:pass@, a key in the path and the query. */
const withCredentials = (url: string) =>
  `${url.replace('http://', 'http://alice:s3cretpass@')}v3/0123456789abcdef0123456789abcdef?apikey=qwertyuiop`
// healthCacheMs 0: each /healthz shows the state of that moment.
const remote = (upstreams: unknown[]) => ({
  networks: [{ name: 'remote', chainId: 31341, upstreams }],
  gateway: { operations: { healthCacheMs: 0 } },
})
const health = async (url: string) => (await request(`${url}/healthz`)).body.json() as Promise<any>

describe('upstream chain id at start-up', () => {
  it('wrong chain id: start-up fails naming the redacted upstream URL and both ids (decimal and hex)', async () => {
    const err = await startTestServer(remote([{ url: anvil.url }, { url: withCredentials(wrong.url) }])).then(
      (s) => s.stop().then(() => 'started'),
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(ChaingateError)
    const { code, message } = err as ChaingateError
    expect(code).toBe('UPSTREAM_WRONG_CHAIN')
    const port = new URL(wrong.url).port
    expect(message).toContain(
      `network remote: upstream http://127.0.0.1:${port}/… answers chain id 999 (0x3e7), but the network is declared ` +
        'with chain id 31341 (0x7a6d)',
    )
    expect(message).toContain('onChainIdMismatch: exclude')
    for (const secret of ['alice', 's3cretpass', '0123456789abcdef', 'qwertyuiop'])
      expect(message).not.toContain(secret)
  })

  it('wrong chain id: `chaingate start` prints the error and exits 1', async () => {
    const dir = tempDir()
    const file = writeConfig(dir, 'chaingate.json', {
      gateway: { port: 0, devAccount: null },
      networks: [{ name: 'remote', chainId: 31341, upstreams: [{ url: withCredentials(wrong.url) }] }],
      dashboard: { enabled: false },
      wallet: { enabled: false },
    })
    const r = await runCli(['start', '--config', file, '--data-dir', `${dir}/data`], { timeoutMs: 30_000 }).finally(
      () => rmSync(dir, { recursive: true, force: true }),
    )
    const port = new URL(wrong.url).port
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      `error: network remote: upstream http://127.0.0.1:${port}/… answers chain id 999 (0x3e7), but the network is ` +
        'declared with chain id 31341 (0x7a6d)',
    )
    expect(r.stderr + r.stdout).not.toContain('s3cretpass')
  }, 40_000)

  it("wrong chain id with onChainIdMismatch 'exclude': starts, /healthz names the excluded node and why, calls go to the good node", async () => {
    const before = wrong.requests.length
    const s = await startTestServer(
      remote([{ url: withCredentials(wrong.url), onChainIdMismatch: 'exclude' }, { url: anvil.url }]),
    )
    try {
      for (let i = 0; i < 4; i++) {
        const r = await s.rpc(call('eth_chainId'), { network: 'remote' })
        expect([r.status, r.json().result]).toEqual([200, '0x7a6d'])
      }
      // Only the start-up check reached the wrong node.
      expect(wrong.requests.slice(before).map((r) => r.body.method)).toEqual(['eth_chainId'])
      const h = await health(s.url)
      expect(h.status).toBe('degraded')
      expect(h.networks).toEqual({ remote: 'up' })
      const port = new URL(wrong.url).port
      expect(h.upstreams.remote).toMatchObject([
        {
          upstream: `http://127.0.0.1:${port}/…`,
          state: 'cordoned',
          cause: 'wrong-chain-id',
          reason: expect.stringContaining(
            'answers chain id 999 (0x3e7), but the network is declared with chain id 31341 (0x7a6d)',
          ),
        },
        { upstream: anvil.url.replace(/\/$/, ''), state: 'healthy' },
      ])
      expect(JSON.stringify(h)).not.toContain('s3cretpass')
      // Subscriptions follow the good node too, though the excluded one is listed first.
      const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/remote/ws/v3/${s.key.key}`)
      await new Promise((r) => ws.once('open', r))
      const answer = new Promise<any>((r) => ws.once('message', (d) => r(JSON.parse(d.toString()))))
      ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 7)))
      expect(await answer).toEqual({ jsonrpc: '2.0', id: 7, result: expect.stringMatching(/^0x[0-9a-f]+$/) })
      ws.close()
      expect(s.logText()).toContain('excluded from rotation')
      expect(s.logText()).not.toContain('s3cretpass')
    } finally {
      await s.stop()
    }
  })

  it('unreachable at start-up: starts with a warning, stays out of rotation, serves once a later check confirms its chain id', async () => {
    const flaky = await startFakeNode('0x7a6d', () => ({ status: 503, body: 'down for maintenance' }))
    const s = await startTestServer(remote([{ url: flaky.url }]))
    try {
      expect(s.logText()).toContain('not reachable at start-up')
      expect((await health(s.url)).upstreams.remote).toMatchObject([
        {
          upstream: flaky.url.replace(/\/$/, ''),
          state: 'down',
          cause: 'unverified',
          reason: expect.stringContaining('not reachable'),
        },
      ])
      const down = await s.rpc(call('eth_blockNumber'), { network: 'remote' })
      expect([down.status, down.credits]).toEqual([503, 0])
      // the check's own failure
      expect(down.json().error.message).toBe('network remote is unavailable: node answered HTTP 503')
      // never sent a client call unconfirmed
      expect(flaky.requests.every((r) => r.body.method === 'eth_chainId')).toBe(true)
      flaky.answer(() => undefined) // the node comes back: chain id 0x7a6d, calls answered 0x1
      const up = await s.rpc(call('eth_blockNumber'), { network: 'remote' })
      expect([up.status, up.json().result, up.credits]).toEqual([200, '0x1', 80])
      expect((await health(s.url)).upstreams.remote).toMatchObject([
        { upstream: flaky.url.replace(/\/$/, ''), state: 'healthy' },
      ])
    } finally {
      await s.stop()
      await flaky.close()
    }
  })
})
