/**
 * The webhook receiver (./webhook-receiver.ts) over real HTTP: it records each request's headers and raw body, answers
 * the statuses it is given in order then 200, and `hang` leaves a request unanswered.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { signed, startReceiver, type Receiver } from './webhook-receiver.ts'

let receiver: Receiver | undefined
afterEach(async () => {
  await receiver?.close()
  receiver = undefined
})

const send = (url: string, body: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, signal })

describe('webhook receiver', () => {
  it('records headers and the raw body of each request; signed() reads the signature headers', async () => {
    receiver = await startReceiver('/hooks/test')
    expect(new URL(receiver.url).pathname).toBe('/hooks/test')
    const body = '{ "event": "credits.threshold",  "spaced": true }'
    const res = await send(receiver.url, body, { 'x-chaingate-signature': 'v1=abc', 'x-chaingate-timestamp': '17' })
    expect([res.status, await res.text()]).toEqual([200, 'ok'])
    expect(receiver.received).toHaveLength(1)
    const [got] = receiver.received
    expect(got!.body).toBe(body)
    expect(got!.status).toBe(200)
    expect(got!.headers['content-type']).toBe('application/json')
    expect(signed(got!)).toEqual({ signature: 'v1=abc', timestamp: '17' })
  })

  it('answers the statuses it is given in order, then 200', async () => {
    receiver = await startReceiver()
    receiver.answer(500, 429)
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) statuses.push((await send(receiver.url, `{"n":${i}}`)).status)
    expect(statuses).toEqual([500, 429, 200])
    expect(receiver.received.map((r) => [r.body, r.status])).toEqual([
      ['{"n":0}', 500],
      ['{"n":1}', 429],
      ['{"n":2}', 200],
    ])
  })

  it('hang records the request and never answers it (status 0); close() ends the hanging connection', async () => {
    receiver = await startReceiver()
    receiver.answer('hang')
    await expect(send(receiver.url, '{}', {}, AbortSignal.timeout(150))).rejects.toThrow(/aborted/)
    expect(receiver.received.map((r) => r.status)).toEqual([0])
    expect((await send(receiver.url, '{}')).status).toBe(200)
    receiver.answer('hang')
    const hanging = send(receiver.url, '{}').catch((err: Error) => err)
    while (receiver.received.length < 3) await new Promise((r) => setTimeout(r, 5))
    await receiver.close()
    receiver = undefined
    expect(await hanging).toBeInstanceOf(Error)
  })
})
