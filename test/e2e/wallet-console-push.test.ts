/**
 * Issue 12 item 4: the console's event stream pushes changes (no polling), the console token survives a restart
 * (a bookmark keeps working), rotates from the console or the CLI (the old token stops at once, and its open
 * stream ends), and the activity list is persisted with transaction hashes and receipts.
 */
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { stringToHex, numberToHex } from 'viem'
import { describe, expect, test } from 'vitest'
import { runWalletCommand } from '../../src/cli/wallet-commands.ts'
import { ACCOUNT_0, CHAIN_A, approve, dapp, useWalletOnDevnets, waitForPending } from './helpers/wallet.ts'

const A = `eip155:${CHAIN_A}`

const wallet = useWalletOnDevnets()

/** Opens /console/api/events; `events` collects the event names as they arrive. */
async function openStream(token: string) {
  const u = new URL(wallet.h.consoleUrl)
  const ctl = new AbortController()
  const res = await fetch(`http://${u.host}/console/api/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: ctl.signal,
  })
  const events: string[] = []
  let ended = false
  const done = (async () => {
    if (!res.body) return
    const dec = new TextDecoder()
    let buf = ''
    try {
      for await (const chunk of res.body as any) {
        buf += dec.decode(chunk, { stream: true })
        let i: number
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const m = /^event: (\w+)$/m.exec(buf.slice(0, i))
          if (m) events.push(m[1]!)
          buf = buf.slice(i + 2)
        }
      }
    } catch {}
    ended = true
  })()
  return { res, events, ended: () => ended, done, close: () => ctl.abort() }
}

const until = async (pred: () => boolean, ms = 5000) => {
  const end = Date.now() + ms
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('console event stream', () => {
  test('needs the token; pushes a change when a request arrives and when it is answered; quiet otherwise', async () => {
    const u = new URL(wallet.h.consoleUrl)
    expect(
      (await fetch(`http://${u.host}/console/api/events`, { headers: { authorization: 'Bearer wrong' } })).status,
    ).toBe(401)
    const s = await openStream(wallet.h.consoleToken)
    expect(s.res.status).toBe(200)
    expect(s.res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    await until(() => s.events.includes('ready'))
    await new Promise((r) => setTimeout(r, 500))
    expect(s.events).toEqual(['ready']) // nothing happened, nothing sent

    const origin = 'https://push.example'
    const d = dapp(wallet.h.url, origin)
    const created = d.client.createSession({
      optionalScopes: { [A]: { methods: ['personal_sign'], notifications: [] } } as any,
    })
    await until(() => s.events.includes('change'))
    const p = await waitForPending(wallet.h, (x) => x.origin === origin)
    const seen = s.events.length
    await approve(wallet.h, p.id, { accounts: [ACCOUNT_0] })
    await created
    await until(() => s.events.length > seen)
    s.close()
    await d.close()
  })
})

describe('console token', () => {
  test('kept in the data dir (0600) across a restart: the same URL works after it', async () => {
    const file = join(wallet.h.dataDir, 'wallet-console-token')
    expect(readFileSync(file, 'utf8').trim()).toBe(wallet.h.consoleToken)
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600)
    const before = wallet.h.consoleUrl
    await wallet.h.restart()
    expect(wallet.h.consoleUrl).toBe(before)
    expect((await wallet.h.console('/console/api/state')).status).toBe(200)
    expect((await fetch(before)).status).toBe(200)
  })

  test('rotated in the console: the old token gets 401 at once and its open stream ends', async () => {
    const old = wallet.h.consoleToken
    const s = await openStream(old)
    await until(() => s.events.includes('ready'))
    const r = await wallet.h.console('/console/api/token/rotate', { method: 'POST', body: {} })
    expect(r.status).toBe(200)
    expect(r.body.token).toMatch(/^[0-9a-f]{32}$/)
    expect(r.body.token).not.toBe(old)
    await until(() => s.ended())
    expect((await wallet.h.console('/console/api/state', { token: old })).status).toBe(401)
    expect((await wallet.h.console('/console/api/state', { token: r.body.token })).status).toBe(200)
    expect(readFileSync(join(wallet.h.dataDir, 'wallet-console-token'), 'utf8').trim()).toBe(r.body.token)
    wallet.h.consoleToken = r.body.token
  })

  test('rotated by the CLI while the wallet runs: the running wallet accepts only the new token', async () => {
    const out: string[] = []
    expect(
      await runWalletCommand(['console-token', 'rotate'], {
        dataDir: wallet.h.dataDir,
        json: true,
        out: (t) => out.push(t),
      }),
    ).toBe(0)
    const { token, url } = JSON.parse(out.pop()!)
    expect(url).toBe(`http://127.0.0.1:8546/console?token=${token}`) // the configured port (the test runs on port 0)
    expect((await wallet.h.console('/console/api/state', { token: wallet.h.consoleToken })).status).toBe(401)
    expect((await wallet.h.console('/console/api/state', { token })).status).toBe(200)
    expect(
      await runWalletCommand(['console-token', 'show'], {
        dataDir: wallet.h.dataDir,
        json: true,
        out: (t) => out.push(t),
      }),
    ).toBe(0)
    expect(JSON.parse(out.pop()!).token).toBe(token)
    wallet.h.consoleToken = token
  })
})

describe('activity list', () => {
  test('approved, rejected, signed and sent (with hash and receipt) are recorded and survive a restart', async () => {
    const origin = 'https://activity.example'
    const d = dapp(wallet.h.url, origin)
    const created = d.client.createSession({
      optionalScopes: { [A]: { methods: ['personal_sign', 'eth_sendTransaction'], notifications: [] } } as any,
    })
    await approve(wallet.h, (await waitForPending(wallet.h, (x) => x.origin === origin)).id, { accounts: [ACCOUNT_0] })
    await created
    const s = await openStream(wallet.h.consoleToken) // receipts are looked up while a console is open
    const invoke = (method: string, params: unknown) =>
      d.client.invokeMethod({ scope: A as any, request: { method, params } as any }).then((r: any) => r.result.result)
    const signing = invoke('personal_sign', [stringToHex('hello'), ACCOUNT_0])
    await approve(
      wallet.h,
      (await waitForPending(wallet.h, (x) => x.origin === origin && x.kind === 'personal_sign')).id,
    )
    await signing
    const refused = invoke('personal_sign', [stringToHex('no'), ACCOUNT_0]).catch((e) => e)
    const p = await waitForPending(wallet.h, (x) => x.origin === origin && x.kind === 'personal_sign')
    expect((await wallet.h.console(`/console/api/approvals/${p.id}/reject`, { method: 'POST', body: {} })).status).toBe(
      200,
    )
    expect(String((await refused).message)).toMatch(/rejected/)
    const sending = invoke('eth_sendTransaction', [
      { from: ACCOUNT_0, to: '0x000000000000000000000000000000000000dEaD', value: numberToHex(10n ** 15n) },
    ])
    await approve(
      wallet.h,
      (await waitForPending(wallet.h, (x) => x.origin === origin && x.kind === 'eth_sendTransaction')).id,
    )
    const hash = await sending
    const entries = async () =>
      ((await wallet.h.console('/console/api/activity')).body.entries as any[]).filter((e) => e.origin === origin)
    for (let i = 0; i < 100 && !(await entries()).some((e) => e.receiptStatus === 'success'); i++)
      await new Promise((r) => setTimeout(r, 100))
    const list = await entries()
    expect(list.map((e) => `${e.kind} ${e.outcome}`)).toEqual([
      'eth_sendTransaction sent',
      'eth_sendTransaction approved',
      'personal_sign rejected',
      'personal_sign signed',
      'personal_sign approved',
      'session approved',
    ])
    expect(list[0]).toMatchObject({
      txHash: hash,
      receiptStatus: 'success',
      chainId: CHAIN_A,
      network: 'devnet-0',
      address: ACCOUNT_0,
    })
    expect(list[0].summary).toContain('0.001 ETH to 0x000000000000000000000000000000000000dEaD')
    expect(list[3].summary).toBe('message "hello"')
    s.close()
    await d.close()
    await wallet.h.restart()
    expect((await entries()).length).toBe(6)
  })
})
