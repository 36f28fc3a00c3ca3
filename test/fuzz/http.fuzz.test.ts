/**
 * Fuzz suite, HTTP: seeded, bounded property runs against the real gateway (loopback, real anvil, real SQLite).
 * Every answer is documented (docs/errors.md): no crash, no 5xx, a JSON-RPC answer with the right id for every
 * call that gets one, and the charge announced in `x-credits-charged` is exactly what the usage ledger records.
 */
import fc from 'fast-check'
import { request as httpRequest } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../e2e/helpers/server.ts'
import { bodyOf, chaos, FUZZ, request } from './arbitraries.ts'
import { DOCUMENTED_STATUSES, expectAnswers, expectAnswerShape, expectedCredits, ledgerCredits } from './oracle.ts'

let s: TestServer
let key: { id: string; key: string }
beforeAll(async () => {
  s = await startTestServer({
    networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 }, devMethods: false }],
  }) // served = Infura's list only (arbitraries.ts)
  key = (await s.newKey('dev')).key
})
afterAll(async () => s?.stop())

async function post(body: string | Buffer) {
  const res = await httpRequest(s.endpoint('devnet-a', key.key), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })
  const text = await res.body.text()
  return { status: res.statusCode, text, credits: Number(res.headers['x-credits-charged']) }
}

describe('fuzz: HTTP', () => {
  it('calls and batches get the documented answer, id and charge', async () => {
    let total = await ledgerCredits(s, key.id)
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const res = await post(bodyOf(r))
        const single = !r.batch
        const answered = r.entries.some((e) => e.expect.id !== undefined)
        const expectedStatus = !answered ? 204 : single && r.entries[0]!.expect.invalid ? 400 : 200
        expect(res.status, res.text.slice(0, 300)).toBe(expectedStatus)
        if (answered) {
          const parsed = JSON.parse(res.text) as unknown
          expect(Array.isArray(parsed)).toBe(r.batch)
          expectAnswers(r.entries, r.batch ? (parsed as unknown[]) : [parsed])
        } else expect(res.text).toBe('')
        expect(res.credits).toBe(expectedCredits(r.entries))
        total += res.credits
        expect(await ledgerCredits(s, key.id, total)).toBe(total)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(250) },
    )
  })

  it('any body (random JSON, text, bytes, cut-off calls) gets a documented status and a JSON-RPC answer', async () => {
    let total = await ledgerCredits(s, key.id)
    await fc.assert(
      fc.asyncProperty(chaos, async (body) => {
        const res = await post(body)
        expect(DOCUMENTED_STATUSES, res.text.slice(0, 300)).toContain(res.status)
        expect(Number.isInteger(res.credits) && res.credits >= 0).toBe(true)
        if (res.status !== 204) {
          const parsed = JSON.parse(res.text) as unknown
          for (const a of Array.isArray(parsed) ? parsed : [parsed]) expectAnswerShape(a)
          if (res.status === 400 && !Array.isArray(parsed)) expect(res.credits).toBe(5)
        }
        total += res.credits
        expect(await ledgerCredits(s, key.id, total)).toBe(total)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(250) },
    )
    // Still serving after all of it.
    expect(JSON.parse((await post('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')).text)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: '0x7a69',
    })
  })
})
