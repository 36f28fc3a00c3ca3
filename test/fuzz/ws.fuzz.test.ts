/**
 * Fuzz suite, WebSocket: the same seeded calls and batches as the HTTP suite, as messages on one connection to the
 * real gateway (loopback, real anvil). Every answered message gets the documented answer with the right ids, the
 * usage ledger records exactly the documented charge, and no input closes the connection.
 */
import fc from 'fast-check'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../e2e/helpers/server.ts'
import { bodyOf, chaos, FUZZ, request } from './arbitraries.ts'
import { expectAnswers, expectAnswerShape, expectedCredits, ledgerCredits } from './oracle.ts'

let s: TestServer
let key: { id: string; key: string }
let ws: WebSocket
let closed: string | undefined
const inbox: unknown[] = []
let wake: (() => void) | undefined

beforeAll(async () => {
  s = await startTestServer({
    networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 }, devMethods: false }],
  }) // served = Infura's list only (arbitraries.ts)
  key = (await s.newKey('dev')).key
  ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/devnet-a/ws/v3/${key.key}`)
  ws.on('message', (d) => {
    inbox.push(JSON.parse(d.toString()))
    wake?.()
  })
  ws.on('close', (code, reason) => (closed = `${code} ${reason.toString()}`))
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
})
afterAll(async () => {
  ws?.close()
  await s?.stop()
})

/** The next message from the gateway (each test waits for its answers one at a time). */
async function next(): Promise<unknown> {
  const deadline = Date.now() + 10_000
  while (inbox.length === 0) {
    if (closed !== undefined) throw new Error(`connection closed: ${closed}`)
    if (Date.now() > deadline) throw new Error('no answer within 10 s')
    await new Promise<void>((r) => {
      wake = r
      setTimeout(r, 50)
    })
  }
  return inbox.shift()
}

describe('fuzz: WebSocket', () => {
  it('messages get the documented answers, ids and charges; the connection stays open', async () => {
    let total = await ledgerCredits(s, key.id)
    // A message of notifications only gets no answer at all: nothing to wait for, so none is sent here.
    // Messages over gateway.maxWsMessageBytes (1 MiB) close the connection (1009, documented): kept below it.
    const answered = request.filter(
      (r) => r.entries.some((e) => e.expect.id !== undefined) && bodyOf(r).length < 1024 * 1024,
    )
    await fc.assert(
      fc.asyncProperty(answered, async (r) => {
        ws.send(bodyOf(r))
        const answer = await next()
        expect(Array.isArray(answer)).toBe(r.batch)
        expectAnswers(r.entries, r.batch ? (answer as unknown[]) : [answer])
        total += expectedCredits(r.entries)
        expect(await ledgerCredits(s, key.id, total)).toBe(total)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(200) },
    )
    expect(closed).toBeUndefined()
  })

  it('any message (random JSON, text, bytes, cut-off calls) gets only JSON-RPC answers and keeps the connection', async () => {
    let n = 0
    await fc.assert(
      fc.asyncProperty(chaos, async (message) => {
        // Followed by a marker call: every message up to the marker's answer must be a JSON-RPC answer (a
        // message of notifications gets none, and answers may overtake each other).
        const marker = `marker-${++n}`
        ws.send(message)
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: marker, method: 'eth_chainId' }))
        for (;;) {
          const a = await next()
          for (const one of Array.isArray(a) ? a : [a]) expectAnswerShape(one)
          if ((a as { id?: unknown }).id === marker) {
            expect(a).toEqual({ jsonrpc: '2.0', id: marker, result: '0x7a69' })
            break
          }
        }
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(200) },
    )
    expect(closed).toBeUndefined()
  })
})
