import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, call, type TestServer } from './helpers/server.ts'
import { RpcCallError, type InProcessClient } from '../../src/gateway/pipeline/in-process-client.ts'

let s: TestServer
let client: InProcessClient

beforeAll(async () => {
  s = await startTestServer({ plans: { one: { creditsPerDay: 80, creditsPerSecond: 1000, maxKeys: null } } })
  client = s.parts.inProcessClient(s.key.id)
})
afterAll(async () => s?.stop())

describe('in-process gateway client (used by the wallet)', () => {
  it('calls go through the pipeline and are charged to its key', async () => {
    const before = s.parts.limits.usedToday(s.account.id, Date.now())
    expect(await client.request(31338, 'eth_chainId', [])).toBe('0x7a6a')
    expect(await client.request(31337, 'eth_getBlockByNumber', ['0x0', false])).toMatchObject({ number: '0x0' })
    expect(s.parts.limits.usedToday(s.account.id, Date.now()) - before).toBe(5 + 80)
  })

  it('errors keep their JSON-RPC code', async () => {
    const err: any = await client.request(31337, 'eth_sign', []).catch((e: any) => e)
    expect(err).toBeInstanceOf(RpcCallError)
    expect(err.code).toBe(-32601)
    const unknownChain: any = await client.request(1, 'eth_chainId', []).catch((e: any) => e)
    expect(unknownChain.message).toContain('chain 1')
  })

  it('a refusal by a limit is an error with the registry code (Infura event -33000)', async () => {
    const { key } = await s.newKey('one')
    const limited = s.parts.inProcessClient(key.id)
    expect(await limited.request(31337, 'eth_blockNumber', [])).toMatch(/^0x/)
    const err: any = await limited.request(31337, 'eth_blockNumber', []).catch((e: any) => e)
    expect(err).toBeInstanceOf(RpcCallError)
    expect(err.code).toBe(-33000)
  })

  it('subscriptions deliver events and unsubscribe', async () => {
    const events: any[] = []
    const sub = await client.subscribe(31337, ['newHeads'], (r) => events.push(r))
    await fetch(s.app.upstreamUrls.get('devnet-a')!.url, {
      method: 'POST',
      body: JSON.stringify(call('evm_mine')),
      headers: { 'content-type': 'application/json' },
    })
    const deadline = Date.now() + 5000
    while (events.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    expect(events[0].number).toMatch(/^0x/)
    await sub.unsubscribe()
  })
})
