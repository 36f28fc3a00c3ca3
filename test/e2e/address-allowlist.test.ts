/**
 * The contract-address allowlist through the real gateway (HTTP and WebSocket, real anvil): with only address A
 * allowed, no method answers for another address — filters, proofs, access lists, traces, raw transactions and
 * log subscriptions included (docs/key-security.md "Contract addresses").
 */
import WebSocket from 'ws'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addAllowlistEntriesTo } from '../../src/keys/security/repository.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const FORBIDDEN = '{"jsonrpc":"2.0","error":{"code":-32002,"message":"rejected due to project ID settings"}}\n'
// anvil's first two funded accounts.
const ADDR_A = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const ADDR_B = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const KEY_A = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

let s: TestServer
let key: string

beforeAll(async () => {
  s = await startTestServer({ networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }] })
  const k = await s.newKey('team')
  await addAllowlistEntriesTo(s.parts.database.db, k.key.id, 'addresses', [ADDR_A], Date.now())
  await s.parts.keySnapshot.reload()
  key = k.key.key
})
afterAll(async () => s?.stop())

const rpc = (body: unknown) => s.rpc(body, { key })

describe('address allowlist over HTTP', () => {
  it('security: each method that names an address answers only for allowed addresses', async () => {
    const cases: [string, (a: string) => unknown[]][] = [
      ['eth_getProof', (a) => [a, [], 'latest']],
      ['eth_createAccessList', (a) => [{ from: ADDR_A, to: a, data: '0x' }, 'latest']],
      ['debug_traceCall', (a) => [{ to: a, data: '0x' }, 'latest', {}]],
      ['eth_getBalance', (a) => [a, 'latest']],
      ['eth_call', (a) => [{ to: a, data: '0x' }, 'latest']],
    ]
    for (const [method, params] of cases) {
      const allowed = await rpc(call(method, params(ADDR_A)))
      expect(allowed.status, `${method} ${allowed.text}`).toBe(200)
      expect(allowed.json().result, method).toBeDefined()
      const refused = await rpc(call(method, params(ADDR_B)))
      expect([refused.status, refused.text], method).toEqual([403, FORBIDDEN])
      expect(refused.credits).toBe(5)
    }
  })

  it('security: a log filter must name allowed addresses; its id then reads only those logs', async () => {
    expect((await rpc(call('eth_newFilter', [{ address: ADDR_B, fromBlock: '0x0' }]))).status).toBe(403)
    expect((await rpc(call('eth_newFilter', [{ fromBlock: '0x0' }]))).status).toBe(403)
    const made = await rpc(call('eth_newFilter', [{ address: ADDR_A, fromBlock: '0x0' }]))
    expect(made.status, made.text).toBe(200)
    const id = made.json().result as string
    expect(id).toMatch(/^0x[0-9a-f]+$/)
    for (const m of ['eth_getFilterLogs', 'eth_getFilterChanges']) {
      const r = await rpc(call(m, [id]))
      expect(r.status, r.text).toBe(200)
      expect(r.json().result).toEqual([])
    }
  })

  it('security: a signed transaction is checked by its recipient', async () => {
    const signer = privateKeyToAccount(KEY_A)
    const nonce = parseInt((await s.rpc(call('eth_getTransactionCount', [ADDR_A, 'pending']))).json().result, 16)
    const tx = { chainId: 31337, nonce, gas: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, value: 1n }
    const toB = await signer.signTransaction({ ...tx, to: ADDR_B })
    expect((await rpc(call('eth_sendRawTransaction', [toB]))).status).toBe(403)
    const before = (await s.rpc(call('eth_getTransactionCount', [ADDR_A, 'pending']))).json().result
    expect(parseInt(before, 16)).toBe(nonce)
    const toA = await signer.signTransaction({ ...tx, to: ADDR_A })
    const sent = await rpc(call('eth_sendRawTransaction', [toA]))
    expect(sent.status, sent.text).toBe(200)
    expect(sent.json().result).toMatch(/^0x[0-9a-f]{64}$/)
  })

  it('security: a method the allowlist cannot read is refused for this key, served for others', async () => {
    const sim = call('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ to: ADDR_B, data: '0x' }] }] }, 'latest'])
    expect((await rpc(sim)).status).toBe(403)
    expect((await s.rpc(sim)).status).toBe(200)
  })
})

describe('address allowlist over WebSocket', () => {
  it('security: eth_subscribe("logs") needs an allowed address; newHeads is not address-checked', async () => {
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/devnet-a/ws/v3/${key}`)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const ask = (body: unknown) =>
      new Promise<any>((resolve) => {
        ws.once('message', (d) => resolve(JSON.parse(d.toString())))
        ws.send(JSON.stringify(body))
      })
    const rejected = { code: -32002, message: 'rejected due to project ID settings' }
    expect(await ask(call('eth_subscribe', ['logs', { address: ADDR_B }], 1))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: rejected,
    })
    expect(await ask(call('eth_subscribe', ['logs', {}], 2))).toEqual({ jsonrpc: '2.0', id: 2, error: rejected })
    expect((await ask(call('eth_subscribe', ['logs', { address: ADDR_A }], 3))).result).toMatch(/^0x[0-9a-f]{32}$/)
    expect((await ask(call('eth_subscribe', ['newHeads'], 4))).result).toMatch(/^0x[0-9a-f]{32}$/)
    expect(await ask(call('eth_getProof', [ADDR_B, [], 'latest'], 5))).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: rejected,
    })
    ws.close()
  })
})
