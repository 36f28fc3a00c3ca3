/**
 * Devnet methods cannot tie an embedded chain up for free (docs/config.md, `devMethods`): a mining call costs its
 * price per block mined, reserved before it runs, so one that asks for more than the key's credits per second pays
 * for is refused up front with the usual rate-limit answer (not a 504 after anvil kept mining); and one key runs at
 * most 4 devnet calls at once (TOO_MANY_DEV_CALLS). Real anvil behind a real gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

let s: TestServer
let free: string
let dev: string

beforeAll(async () => {
  s = await startTestServer({ networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }] })
  free = (await s.newKey('free')).key.key // 500 credits/s
  dev = (await s.newKey('dev')).key.key
}, 60_000)
afterAll(async () => s?.stop(), 30_000)

const post = (key: string, body: unknown) => s.rpc(body, { key })
const height = async () => Number((await post(dev, call('eth_blockNumber'))).json().result)

describe('mining priced by blocks', { timeout: 60_000 }, () => {
  it('a big mine from a free key is refused up front (429, free), and anvil mines nothing', async () => {
    const before = await height()
    const started = Date.now()
    const r = await post(free, call('anvil_mine', ['0x2710']))
    expect(Date.now() - started).toBeLessThan(2000)
    expect(r.status).toBe(429)
    expect(r.json().error).toMatchObject({ code: 429, event: -33200 })
    expect(r.credits).toBe(0)
    expect(await height()).toBe(before)
    // hardhat_mine the same; and a batch of small mines over the budget as a whole.
    expect((await post(free, call('hardhat_mine', ['0x64']))).status).toBe(429)
    const batch = await post(
      free,
      [1, 2, 3].map((id) => call('anvil_mine', ['0x3'], id)),
    )
    expect(batch.status).toBe(429)
    expect(batch.credits).toBe(0)
    expect(await height()).toBe(before)
  })

  it('a small mine is charged by the blocks it mines; evm_mine one block', async () => {
    await new Promise((r) => setTimeout(r, 1100)) // a full second's budget again
    const before = await height()
    const r = await post(free, call('anvil_mine', ['0x3']))
    expect(r.json().error, r.text).toBeUndefined()
    expect(r.credits).toBe(240)
    expect(await height()).toBe(before + 3)
    const one = await post(free, call('evm_mine'))
    expect(one.credits).toBe(80)
  })
})

describe("one key's concurrent dev calls", { timeout: 60_000 }, () => {
  const TOO_MANY = -32005

  it('over 4 at once: the others get TOO_MANY_DEV_CALLS (429, free) without reaching anvil; then slots free up', async () => {
    const before = await height()
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(dev, call('anvil_mine', ['0x1f4'], i))), // 500 blocks each
    )
    const ok = replies.filter((r) => r.json().error === undefined)
    const refused = replies.filter((r) => r.json().error?.code === TOO_MANY)
    expect(ok.length + refused.length).toBe(10)
    expect(ok.length).toBeGreaterThanOrEqual(4)
    expect(refused.length).toBeGreaterThan(0)
    for (const r of refused) {
      expect(r.status).toBe(429)
      expect(r.json().error.message).toMatch(/too many concurrent dev calls for this key/)
      expect(r.credits).toBe(0)
    }
    expect(await height()).toBe(before + 500 * ok.length)
    // Ordinary calls are not counted; another key has slots of its own; once done, the key's slots are free.
    const batch = await post(dev, [call('evm_mine', [], 1), call('eth_chainId', [], 2)])
    expect(batch.json().map((a: { error?: unknown }) => a.error)).toEqual([undefined, undefined])
  })

  it('a batch of more dev calls than the cap: they are refused in place, the rest answered', async () => {
    const calls = [...Array.from({ length: 5 }, (_, i) => call('evm_mine', [], i)), call('eth_chainId', [], 9)]
    const answers = (await post(dev, calls)).json() as { id: number; error?: { code: number } }[]
    expect(answers.slice(0, 5).every((a) => a.error?.code === TOO_MANY)).toBe(true)
    expect(answers[5]!.error).toBeUndefined()
  })
})
