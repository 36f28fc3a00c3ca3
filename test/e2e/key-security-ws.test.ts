/**
 * Key security over WebSocket: credentials and origin at the upgrade (same statuses and bodies as HTTP), method
 * and address allowlists per message, and settings changed while a socket is open.
 */
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addAllowlistEntriesTo, rotateKeySecret, setSecurityFlags } from '../../src/keys/security/repository.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

let s: TestServer
beforeAll(async () => {
  s = await startTestServer({ networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }] })
})
afterAll(async () => s?.stop())

const url = (key: string) => `${s.url.replace('http', 'ws')}/networks/devnet-a/ws/v3/${key}`

function open(key: string, headers: Record<string, string> = {}) {
  return new Promise<{ ws?: WebSocket; status?: number; body?: string }>((resolve) => {
    const ws = new WebSocket(url(key), { headers })
    ws.once('open', () => resolve({ ws }))
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
    ws.on('error', () => undefined)
  })
}
const ask = (ws: WebSocket, body: unknown) =>
  new Promise<any>((resolve) => {
    ws.once('message', (d) => resolve(JSON.parse(d.toString())))
    ws.send(JSON.stringify(body))
  })

describe('key security over WebSocket', () => {
  it('a required secret is checked at the upgrade (wscat --auth ":<secret>")', async () => {
    const { key } = await s.newKey('team')
    const secret = await rotateKeySecret(s.parts.database.db, key.id, Date.now())
    await setSecurityFlags(s.parts.database.db, key.id, { requireSecret: true }, Date.now())
    await s.parts.keySnapshot.reload()
    const refused = await open(key.key)
    expect(refused.status).toBe(401)
    expect(refused.body).toContain('invalid project id or project secret')
    const ok = await open(key.key, { authorization: `Basic ${Buffer.from(`:${secret}`).toString('base64')}` })
    expect(await ask(ok.ws!, call('eth_chainId'))).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    ok.ws!.close()
  })

  it('origin allowlist at the upgrade; method allowlist per message, also when added while open', async () => {
    const { key } = await s.newKey('team')
    await addAllowlistEntriesTo(s.parts.database.db, key.id, 'origins', ['https://*.example.com'], Date.now())
    await s.parts.keySnapshot.reload()
    expect((await open(key.key, { origin: 'https://evil.test' })).status).toBe(403)
    const { ws } = await open(key.key, { origin: 'https://app.example.com' })
    expect((await ask(ws!, call('eth_blockNumber'))).result).toMatch(/^0x/)
    await addAllowlistEntriesTo(s.parts.database.db, key.id, 'methods', ['eth_chainId'], Date.now())
    await s.parts.keySnapshot.reload()
    expect(await ask(ws!, call('eth_blockNumber', [], 2))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32002, message: 'rejected due to project ID settings' },
    })
    expect((await ask(ws!, call('eth_chainId', [], 3))).result).toBe('0x7a69')
    ws!.close()
  })
})
