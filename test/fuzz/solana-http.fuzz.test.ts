/**
 * Fuzz suite, Solana over HTTP: seeded, bounded property runs against the real gateway in front of the embedded
 * Solana devnet. Calls of the Solana methods (and a few EVM names) with hostile params — base58 and base64 that is
 * almost right, nested config objects with odd members, key lists past 100 — must each get a JSON-RPC answer with
 * the call's id, a documented status, a charge of 0, 5, 180 or a heavy scan's 1,800, and exactly what the usage
 * ledger records; and the devnet must still be healthy afterwards.
 */
import fc from 'fast-check'
import { request as httpRequest } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultMethods } from '../../src/methods/served.ts'
import { startTestServer, type TestServer } from '../e2e/helpers/server.ts'
import { FUZZ } from './arbitraries.ts'
import { DOCUMENTED_STATUSES, expectAnswerShape, ledgerCredits } from './oracle.ts'

const NETWORK = 'solana-devnet'
/** HTTP methods of the Solana family (the PubSub ones are refused over HTTP, also worth sending). */
const METHODS = [...defaultMethods('solana'), 'eth_call', 'eth_blockNumber', 'getNoSuchThing']
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const PROGRAMS = ['11111111111111111111111111111111', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA']

const base58 = (min: number, max: number) =>
  fc.array(fc.constantFrom(...BASE58.split('')), { minLength: min, maxLength: max }).map((c) => c.join(''))
/** Public keys: valid ones, near misses (wrong length, 0/O/I/l), and anything. */
const pubkey = fc.oneof(
  fc.constantFrom(...PROGRAMS),
  base58(43, 44),
  base58(1, 60),
  fc.constantFrom('0x70997970c51812dc3a010c7d01b50e0d17dc79c8', 'O0Il', ''),
  fc.string(),
)
const base64 = fc.oneof(
  fc.uint8Array({ maxLength: 1400 }).map((b) => Buffer.from(b).toString('base64')),
  fc.string({ maxLength: 80 }),
)
const scalar = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 20 }))
const config = fc.record(
  {
    commitment: fc.oneof(fc.constantFrom('processed', 'confirmed', 'finalized', 'recent', 'max'), scalar),
    encoding: fc.oneof(fc.constantFrom('base58', 'base64', 'base64+zstd', 'jsonParsed', 'json', 'binary'), scalar),
    minContextSlot: fc.oneof(fc.nat(), fc.integer({ min: -5, max: 1e12 }), scalar),
    dataSlice: fc.oneof(fc.record({ offset: fc.integer(), length: fc.integer() }), scalar),
    filters: fc.oneof(
      fc.array(
        fc.oneof(
          fc.record({ dataSize: fc.oneof(fc.nat(200), scalar) }),
          fc.record({ memcmp: fc.record({ offset: fc.nat(100), bytes: fc.oneof(base58(0, 20), scalar) }) }),
          scalar,
        ),
        { maxLength: 5 },
      ),
      scalar,
    ),
    maxSupportedTransactionVersion: fc.oneof(fc.constantFrom(0, 1), scalar),
    skipPreflight: fc.boolean(),
    sigVerify: fc.boolean(),
    replaceRecentBlockhash: fc.boolean(),
    limit: fc.oneof(fc.nat(2000), scalar),
    [`__proto__`]: scalar,
  },
  { requiredKeys: [] },
)
const param = fc.oneof(
  { weight: 3, arbitrary: pubkey },
  { weight: 2, arbitrary: config },
  { weight: 1, arbitrary: base64 },
  { weight: 1, arbitrary: fc.array(pubkey, { maxLength: 110 }) },
  { weight: 1, arbitrary: fc.oneof(fc.nat(), scalar) },
  { weight: 1, arbitrary: fc.record({ mint: pubkey }, { requiredKeys: [] }) },
)
const call = fc.record({
  method: fc.constantFrom(...METHODS),
  params: fc.oneof({ weight: 6, arbitrary: fc.array(param, { maxLength: 3 }) }, { weight: 1, arbitrary: scalar }),
  id: fc.oneof(fc.nat(), fc.string({ maxLength: 10 })),
})

let s: TestServer
let key: { id: string; key: string }
beforeAll(async () => {
  s = await startTestServer({ networks: [{ name: NETWORK, family: 'solana', embedded: { port: 0, slotMs: 100 } }] })
  key = (await s.newKey('dev', [NETWORK])).key
}, 90_000)
afterAll(async () => s?.stop())

async function post(body: string) {
  const res = await httpRequest(s.endpoint(NETWORK, key.key), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })
  const text = await res.body.text()
  return { status: res.statusCode, text, credits: Number(res.headers['x-credits-charged']) }
}

describe('fuzz: Solana over HTTP', () => {
  it('hostile Solana params get an answer with the id, a documented status, and the charge the ledger records', async () => {
    let total = await ledgerCredits(s, key.id)
    await fc.assert(
      fc.asyncProperty(call, async (c) => {
        const res = await post(JSON.stringify({ jsonrpc: '2.0', ...c }))
        expect(DOCUMENTED_STATUSES, res.text.slice(0, 300)).toContain(res.status)
        const answer = JSON.parse(res.text) as unknown
        expectAnswerShape(answer)
        expect(answer.id).toEqual(c.id)
        expect([0, 5, 180, 1800], res.text.slice(0, 300)).toContain(res.credits)
        total += res.credits
        expect(await ledgerCredits(s, key.id, total)).toBe(total)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(300) },
    )
    // The devnet behind it took all of that and still answers.
    const health = await post('{"jsonrpc":"2.0","id":1,"method":"getHealth"}')
    expect(JSON.parse(health.text).result).toBe('ok')
  }, 240_000)
})
