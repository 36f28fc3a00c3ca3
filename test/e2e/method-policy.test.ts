/**
 * The served-method list through the real gateway (real anvil, real SQLite, the dashboard's /usage page): methods
 * off the list get Infura's -32601 body and never reach the node; the list is set per network; and method names a
 * client invents are stored under one bounded label (no disk or page growth with megabyte names).
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { injectClient } from './helpers/dashboard.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' // anvil's first funded account
const TO = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'
const notAvailable = (id: number | string, m: string) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":-32601,"message":"The method ${m} does not exist/is ` +
  'not available"}}'

let s: TestServer
beforeAll(async () => {
  s = await startTestServer(
    {
      networks: [
        // Devnet methods off: this network stands for one on a real node (they are on by default for embedded chains;
        // test/e2e/cli-devnet-methods.test.ts).
        { name: 'devnet-a', chainId: 31337, embedded: { port: 0 }, devMethods: false },
        {
          name: 'devnet-b',
          chainId: 31338,
          embedded: { port: 0 },
          methods: { allow: ['txpool_content'], deny: ['eth_getBalance'] },
        },
      ],
    },
    { parts: { dashboard: true } },
  )
})
afterAll(async () => s?.stop())

/** Asks the node directly, bypassing the gateway. */
async function node(network: string, method: string, params: unknown[]) {
  const res = await fetch(s.app.upstreamUrls.get(network)!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(call(method, params)),
  })
  return ((await res.json()) as { result: unknown }).result
}

describe('served methods', () => {
  it('security: node-signing and node-control methods get Infura -32601, cost 5, and never reach the node', async () => {
    const before = await node('devnet-a', 'eth_getBalance', [TO, 'latest'])
    const tx = { from: FROM, to: TO, value: '0xde0b6b3a7640000' }
    const refused: [string, unknown[]][] = [
      ['eth_sendTransactionSync', [tx]],
      ['eth_sendUnsignedTransaction', [tx]],
      ['eth_sendTransaction', [tx]],
      ['debug_setHead', ['0x0']],
      ['anvil_setBalance', [TO, '0xffff']],
      ['evm_mine', []],
      ['eth_notARealMethod', []],
    ]
    for (const [m, params] of refused) {
      const r = await s.rpc(call(m, params, 7))
      expect([r.status, r.text, r.credits], m).toEqual([200, notAvailable(7, m), 5])
    }
    expect(await node('devnet-a', 'eth_getBalance', [TO, 'latest'])).toBe(before)
    // In a batch, per entry; the served calls still run.
    const batch = await s.rpc([call('eth_sendUnsignedTransaction', [tx], 'a'), call('eth_chainId', [], 'b')])
    expect(batch.json()).toEqual([
      JSON.parse(notAvailable('a', 'eth_sendUnsignedTransaction')),
      { jsonrpc: '2.0', id: 'b', result: '0x7a69' },
    ])
  })

  it('behavior: networks[].methods.allow / deny change one network only', async () => {
    expect((await s.rpc(call('txpool_content'), { network: 'devnet-b' })).json().result).toHaveProperty('pending')
    expect((await s.rpc(call('txpool_content'))).text).toBe(notAvailable(1, 'txpool_content'))
    expect((await s.rpc(call('eth_getBalance', [TO, 'latest']), { network: 'devnet-b' })).text).toBe(
      notAvailable(1, 'eth_getBalance'),
    )
    expect((await s.rpc(call('eth_getBalance', [TO, 'latest']))).json().result).toMatch(/^0x/)
  })

  it('error: a config that allows a node-signing method does not start', async () => {
    await expect(
      startTestServer({
        networks: [
          { name: 'devnet-a', chainId: 31337, embedded: { port: 0 }, methods: { allow: ['eth_sendTransaction'] } },
        ],
      }),
    ).rejects.toThrow(/eth_sendTransaction can never be served/)
  })
})

describe('method names clients invent', () => {
  it('security: 10 calls with 1 MiB method names leave the database and the usage page small', async () => {
    const c = injectClient(s.parts.server.app, { ip: '10.9.0.1' })
    expect((await c.signup(`names-${Date.now()}@example.com`, 'a-good-password-123')).statusCode).toBe(303)
    const made = await c.submit('/keys', '/keys', { name: 'names' })
    const key = /id="api-key" type="text" readonly value="([0-9a-f]{32})"/.exec(made.body)![1]!
    await s.parts.keySnapshot.reload()
    const dataDir = s.app.config.dataDir
    const dbBytes = () =>
      ['chaingate.sqlite', 'chaingate.sqlite-wal'].reduce((sum, f) => {
        try {
          return sum + statSync(join(dataDir, f)).size
        } catch {
          return sum
        }
      }, 0)
    await s.parts.ledger.flush()
    const before = dbBytes()
    for (let i = 0; i < 10; i++) {
      const name = `eth_${String(i).repeat(1 << 20)}`
      const r = await s.rpc(call(name), { key })
      expect(r.json().error.code).toBe(-32601)
      expect(r.text.length).toBeLessThan(500)
    }
    await s.parts.ledger.flush()
    expect(dbBytes() - before).toBeLessThan(256 * 1024)
    const stored = s.parts.database
      .sqlite!.prepare('select method, calls from usage_hourly where method like ? or method = ?')
      .all('eth_0%', 'other')
    expect(stored.every((r) => (r as { method: string }).method === 'other')).toBe(true)
    const page = await c.get('/usage')
    expect(page.statusCode).toBe(200)
    expect(page.body.length).toBeLessThan(200_000)
    expect(page.body).not.toContain('eth_000000')
    // The request line keeps a bounded name too (its lines are written every 100 ms).
    await new Promise((r) => setTimeout(r, 300))
    expect(s.logText().length).toBeLessThan(1 << 20)
  })
})
