/**
 * Several upstreams behind the real gateway: a node killed while clients send reads, a hanging node, a lagging
 * node, and what operators see of them (/healthz, /metrics, `chaingate upstreams`). The nodes are the scriptable
 * fake node (test/support/fake-node.ts); the pool's own fault table is src/upstreams/pool/faults.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { runCli, tempDir, writeConfig } from './helpers/process.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN = 31341
let nodes: FakeNode[] = []
let servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()))
  await Promise.all(nodes.map((n) => n.close()))
  servers = []
  nodes = []
})
const fakes = async (count: number) => {
  const list = await Promise.all(Array.from({ length: count }, () => startFakeNode(`0x${CHAIN.toString(16)}`)))
  nodes.push(...list)
  return list
}
const gateway = async (upstreams: object[], upstreamPolicy: object = {}) => {
  const s = await startTestServer({
    networks: [{ name: 'remote', chainId: CHAIN, upstreams, upstreamPolicy }],
    gateway: { operations: { healthCacheMs: 0 } },
  })
  servers.push(s)
  return s
}
const health = async (s: TestServer) => (await (await request(`${s.url}/healthz`)).body.json()) as any
const balance = (s: TestServer, i: number, key?: string) =>
  s.rpc(call('eth_getBalance', [`0x${i.toString(16).padStart(40, '0')}`, 'latest'], i), {
    network: 'remote',
    ...(key ? { key } : {}),
  })

describe('upstream failover through the gateway', () => {
  it('node killed mid-run: no client read fails, the dead node is shown down in /healthz', async () => {
    const [a, b] = await fakes(2)
    const s = await gateway([{ url: a!.url }, { url: b!.url }])
    const { key } = await s.newKey('dev') // a plan whose credits/s limit the test's pace does not reach
    let i = 0
    const failures: string[] = []
    const loop = async (until: number) => {
      while (Date.now() < until) {
        const r = await balance(s, i++, key.key)
        if (r.status !== 200 || r.json().result !== '0x1') failures.push(r.text)
      }
    }
    const until = Date.now() + 2500
    const clients = Promise.all(Array.from({ length: 4 }, () => loop(until)))
    await new Promise((r) => setTimeout(r, 800))
    await a!.kill()
    await clients
    expect(failures).toEqual([])
    expect(i).toBeGreaterThan(20)
    const h = await health(s)
    expect(h.upstreams.remote.find((u: any) => u.upstream === a!.url.replace(/\/$/, ''))).toMatchObject({
      state: 'down',
    })
    expect(h.upstreams.remote.find((u: any) => u.upstream === b!.url.replace(/\/$/, ''))).toMatchObject({
      state: 'healthy',
      role: 'primary',
    })
  })

  it('hanging node: reads are answered by the other node in well under the upstream timeout', async () => {
    const [a, b] = await fakes(2)
    const s = await gateway([{ url: a!.url }, { url: b!.url }], { hedge: { delayMs: 50 } })
    a!.fault({ kind: 'hang' })
    const started = Date.now()
    for (let i = 0; i < 12; i++) expect((await balance(s, i)).json().result).toBe('0x1')
    // The upstream timeout is 30 s: a call left waiting on the hanging node would take that long.
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(b!.requests.length).toBeGreaterThanOrEqual(12)
  })

  it('lagging node: shown lagging with its head and lag in /healthz; eth_blockNumber answers come from the node at the tip', async () => {
    const [a, b] = await fakes(2)
    a!.setHead(500)
    b!.setHead(400)
    const s = await gateway([{ url: a!.url }, { url: b!.url, labels: ['archive'] }])
    for (let i = 0; i < 10; i++)
      expect((await s.rpc(call('eth_blockNumber', [], i), { network: 'remote' })).json().result).toBe('0x1f4')
    const lagging = (await health(s)).upstreams.remote.find((u: any) => u.upstream === b!.url.replace(/\/$/, ''))
    expect(lagging).toMatchObject({ state: 'lagging', head: 400, lagBlocks: 100, labels: ['archive'] })
  })
})

describe('upstream state for operators', () => {
  it('/metrics has per-upstream series labelled with the redacted URL', async () => {
    const [a, b] = await fakes(2)
    const withSecret = `${a!.url.replace('http://', 'http://user:s3cretpass@')}v3/0123456789abcdef`
    const s = await gateway([{ url: withSecret }, { url: b!.url }])
    for (let i = 0; i < 4; i++) await balance(s, i)
    const text = await (await request(`${s.url}/metrics`)).body.text()
    const port = new URL(a!.url).port
    expect(text).toContain(
      `chaingate_upstream_state{network="remote",upstream="http://127.0.0.1:${port}/…",state="healthy"} 1`,
    )
    expect(text).toMatch(
      /chaingate_upstream_latency_p99_seconds\{network="remote",upstream="http:\/\/127\.0\.0\.1:\d+"\} [0-9.e-]+/,
    )
    expect(text).toMatch(/chaingate_upstream_head_block\{network="remote",upstream="http:\/\/127\.0\.0\.1:\d+"\} 1/)
    expect(text).not.toContain('s3cretpass')
    expect(text).not.toContain('0123456789abcdef')
  })

  it('chaingate upstreams --json asks the running server and lists each node with its state', async () => {
    const [a, b] = await fakes(2)
    const s = await gateway([{ url: a!.url }, { url: b!.url, role: 'fallback' }])
    await balance(s, 1)
    const dir = tempDir()
    const port = Number(new URL(s.url).port)
    const config = writeConfig(dir, 'config.json', {
      dataDir: dir,
      gateway: { port },
      networks: [{ name: 'remote', chainId: CHAIN, upstreams: [{ url: a!.url }, { url: b!.url }] }],
    })
    const json = await runCli(['upstreams', '--json', '--config', config])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout).remote).toMatchObject([
      { upstream: a!.url.replace(/\/$/, ''), state: 'healthy', role: 'primary' },
      { upstream: b!.url.replace(/\/$/, ''), state: 'healthy', role: 'fallback' },
    ])
    const table = await runCli(['upstreams', '--config', config])
    expect(table.stdout).toMatch(/^network\s+upstream\s+role\s+state\s+head/)
    expect(table.stdout).toContain('fallback')
    // A server started with `--port N` (the config says another port): `chaingate upstreams --port N` finds it.
    const other = writeConfig(dir, 'other.json', { dataDir: dir, gateway: { port: 1 } })
    const byPort = await runCli(['upstreams', '--json', '--config', other, '--port', String(port)])
    expect(byPort.code, byPort.stderr).toBe(0)
    expect(Object.keys(JSON.parse(byPort.stdout))).toEqual(['remote'])
  }, 60_000)

  it('chaingate upstreams with no server running says so and exits 1', async () => {
    const dir = tempDir()
    const config = writeConfig(dir, 'config.json', { dataDir: dir, gateway: { port: 1 } })
    const r = await runCli(['upstreams', '--config', config])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('no chaingate server answers at http://127.0.0.1:1/healthz')
  }, 60_000)
})

describe('transactions sent more than once', () => {
  it('same raw transaction sent twice by the client (embedded devnet): the second answer is the node\'s "nonce too low"', async () => {
    const s = await startTestServer()
    servers.push(s)
    // anvil's first funded account (the well-known test mnemonic).
    const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
    const raw = await account.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      to: `0x${'5'.repeat(40)}`,
      value: parseEther('0.01'),
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
    })
    const first = await s.rpc(call('eth_sendRawTransaction', [raw], 1), { network: 'devnet-a' })
    const hash = first.json().result
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
    // Mined first (anvil mines on its own a moment after it answers): while it is still pending, the second send is
    // "transaction already imported" instead, which a loaded machine showed once.
    for (let i = 0; i < 100; i++) {
      const receipt = await s.rpc(call('eth_getTransactionReceipt', [hash], 3), { network: 'devnet-a' })
      if (receipt.json().result) break
      await new Promise((r) => setTimeout(r, 50))
    }
    const second = await s.rpc(call('eth_sendRawTransaction', [raw], 2), { network: 'devnet-a' })
    expect([second.status, second.json()]).toMatchObject([
      200,
      { jsonrpc: '2.0', id: 2, error: { message: expect.stringMatching(/nonce/i) } },
    ])
  })
})
