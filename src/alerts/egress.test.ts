/**
 * Where a webhook may connect, checked on the socket (src/alerts/egress.ts) against a real receiver on 127.0.0.1:
 * without the operator's opt-in a name that resolves to loopback (here `localhost`, as a rebinding name would at
 * send time) and a literal loopback IP in any spelling are refused before a byte is sent, and the account reads
 * "connection failed" while the detail says why; with `allowPrivateTargets` they are delivered; a redirect is
 * never followed.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { startReceiver, type Receiver } from '../../test/support/webhook-receiver.ts'
import { createWebhookDispatcher, PRIVATE_TARGET } from './egress.ts'
import { sendWebhook } from './webhook.ts'

let receiver: Receiver | undefined
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
  await receiver?.close()
  receiver = undefined
})

const dispatcher = (allowPrivateTargets: boolean) => {
  const d = createWebhookDispatcher({ allowPrivateTargets, connectTimeoutMs: 2000 })
  closers.push(() => d.close())
  return d
}
const send = (url: string, d: ReturnType<typeof dispatcher>) =>
  sendWebhook(url, 'whsec_test', 'alert-1', '{}', { timeoutMs: 2000, nowMs: Date.now(), dispatcher: d })

it('without the opt-in, loopback by name or by any literal spelling is refused at connect', async () => {
  receiver = await startReceiver()
  const { port, pathname } = new URL(receiver.url)
  const d = dispatcher(false)
  for (const host of ['localhost', '127.0.0.1', '127.1', '0x7f000001', '2130706433', '[::ffff:127.0.0.1]']) {
    const r = await send(`http://${host}:${port}${pathname}`, d)
    expect([host, r.status, r.error, r.delivered, r.retry]).toEqual([host, null, 'connection failed', false, true])
    expect(r.detail).toContain(PRIVATE_TARGET)
    expect(r.detail).toMatch(/private address/)
  }
  expect(receiver.received).toEqual([])
})

it('with the opt-in, the same receiver gets it', async () => {
  receiver = await startReceiver()
  const d = dispatcher(true)
  const { port, pathname } = new URL(receiver.url)
  for (const host of ['localhost', '127.0.0.1']) {
    const r = await send(`http://${host}:${port}${pathname}`, d)
    expect([host, r.status, r.error, r.delivered]).toEqual([host, 200, null, true])
  }
  expect(receiver.received).toHaveLength(2)
})

it('a redirect is not followed, with or without the opt-in', async () => {
  receiver = await startReceiver()
  const target = receiver.url
  const redirector = createServer((_req, res) => res.writeHead(307, { location: target }).end())
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r))
  closers.push(() => new Promise((r) => redirector.close(() => r())))
  const { port } = redirector.address() as AddressInfo
  const r = await send(`http://127.0.0.1:${port}/hook`, dispatcher(true))
  expect([r.status, r.error, r.delivered, r.retry]).toEqual([
    307,
    'HTTP 307 (redirects are not followed)',
    false,
    false,
  ])
  expect(receiver.received).toEqual([])
})
