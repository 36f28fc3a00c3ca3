/**
 * Bad input gets the client's own error, never the node's (real gateway, real anvil, HTTP and WebSocket): ids and
 * texts a node would answer with `id: null` (fractions, exponents, integers beyond 2^53, unpaired surrogates,
 * nesting), and bodies larger than the node accepts (413, never "network is unavailable").
 */
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

let s: TestServer
beforeAll(async () => {
  s = await startTestServer({ networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }] })
})
afterAll(async () => s?.stop())

const raw = (id: string, params = '[]') => `{"jsonrpc":"2.0","id":${id},"method":"eth_chainId","params":${params}}`
const deep = (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`

/** Credits the ledger holds for the test key so far. */
async function ledgerCredits() {
  await s.parts.ledger.flush()
  const row = await s.parts.database.db
    .selectFrom('usage_hourly')
    .select((eb) => eb.fn.sum<number>('credits').as('c'))
    .where('key_id', '=', s.key.id)
    .executeTakeFirst()
  return Number(row?.c ?? 0)
}

describe('ids and texts the node would answer with id null (HTTP)', () => {
  it('error: a bad id answers HTTP 400 -32600 with id null, charged 5 as an input error', async () => {
    for (const id of ['1.5', '1e30', '1.0', '18446744073709551616', '9007199254740993', '"\\ud800"']) {
      const before = await ledgerCredits()
      const r = await s.rpc(raw(id))
      expect(r.status, id).toBe(400)
      expect(r.json(), id).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } })
      expect(r.credits, id).toBe(5)
      expect((await ledgerCredits()) - before, id).toBe(5)
    }
  })

  it("error: nesting and unpaired surrogates elsewhere answer HTTP 400 with the call's own id", async () => {
    const tooDeep = await s.rpc(raw('7', deep(100)))
    expect([tooDeep.status, tooDeep.json(), tooDeep.credits]).toEqual([
      400,
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid request: nested deeper than 64 levels' } },
      5,
    ])
    const lone = await s.rpc(raw('"x"', '["\\udc00"]'))
    expect([lone.status, lone.json().id, lone.json().error.code, lone.credits]).toEqual([400, 'x', -32600, 5])
    // Deep but within the limit reaches the node, which answers with the client's id.
    const ok = await s.rpc(raw('8', deep(40)))
    expect([ok.status, ok.json().id]).toEqual([200, 8])
  })

  it('error: a deeply nested batch answers each deep entry with its own id; the others are served', async () => {
    const body = `[${raw('1', deep(500))},${raw('2')},${raw('3', deep(2000))},${raw('1.5')}]`
    const r = await s.rpc(body)
    expect(r.status).toBe(200)
    const out = r.json() as { id: unknown; error?: { code: number; message: string }; result?: string }[]
    expect(out.map((a) => [a.id, a.error?.code ?? a.result])).toEqual([
      [1, -32600],
      [2, '0x7a69'],
      [3, -32600],
      [null, -32600],
    ])
    expect(r.text).not.toContain('unavailable')
    expect(r.credits).toBe(5 + 5 + 5 + 5)
  })
})

describe('bodies larger than the node accepts', () => {
  it("error: 3 MiB to an embedded network answers 413 -32600 with the call's id, free, and the network stays healthy", async () => {
    const params = JSON.stringify(['a'.repeat(3 * 1024 * 1024)])
    for (let i = 0; i < 3; i++) {
      const r = await s.rpc(raw('5', params))
      expect(r.status).toBe(413)
      expect(r.json()).toEqual({
        jsonrpc: '2.0',
        id: 5,
        error: { code: -32600, message: 'request too large for network devnet-a: at most 2097152 bytes' },
      })
      expect(r.credits).toBe(0)
    }
    const after = await s.rpc(call('eth_chainId'))
    expect([after.status, after.json().result]).toEqual([200, '0x7a69'])
    const health = await fetch(`${s.url}/healthz`)
    expect(health.status).toBe(200)
  })
})

describe('the same rules over WebSocket', () => {
  it('error: bad ids, nesting and surrogates get -32600 with the right id; the connection stays open', async () => {
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/devnet-a/ws/v3/${s.key.key}`)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const ask = (text: string) =>
      new Promise<any>((resolve) => {
        ws.once('message', (d) => resolve(JSON.parse(d.toString())))
        ws.send(text)
      })
    expect(await ask(raw('1e30'))).toMatchObject({ id: null, error: { code: -32600 } })
    expect(await ask(raw('4', deep(100)))).toMatchObject({ id: 4, error: { code: -32600 } })
    expect(await ask(raw('5', '["\\ud800"]'))).toMatchObject({ id: 5, error: { code: -32600 } })
    expect(await ask(raw('6'))).toEqual({ jsonrpc: '2.0', id: 6, result: '0x7a69' })
    ws.close()
  })
})
