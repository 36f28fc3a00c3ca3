/**
 * The fake node (./fake-node.ts) over real HTTP and WebSocket: its default answers and chain, scripts, the requests it
 * records, each fault, kill and revive on the same port, and subscriptions (EVM and Solana PubSub).
 */
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { result, rpcError, startFakeNode, type FakeNode } from './fake-node.ts'

const nodes: FakeNode[] = []
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close()
})
async function node(...args: Parameters<typeof startFakeNode>): Promise<FakeNode> {
  const n = await startFakeNode(...args)
  nodes.push(n)
  return n
}

let nextId = 1
const call = (method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id: nextId++, method, params })
async function post(url: string, body: unknown, signal?: AbortSignal): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  })
  return { status: res.status, json: await res.json() }
}

/** A WebSocket client on the node that hands out the messages it receives, in order. */
async function wsClient(url: string) {
  const ws = new WebSocket(url)
  const inbox: any[] = []
  const waiting: ((m: any) => void)[] = []
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString())
    const w = waiting.shift()
    if (w) w(m)
    else inbox.push(m)
  })
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  const next = () =>
    inbox.length > 0 ? Promise.resolve(inbox.shift()) : new Promise<any>((resolve) => waiting.push(resolve))
  return {
    ws,
    next,
    async ask(body: unknown) {
      ws.send(JSON.stringify(body))
      return next()
    },
  }
}

describe('fake node over HTTP', () => {
  it('answers its chain id, its head and 0x1 by default, a batch call by call, and records what it got', async () => {
    const n = await node('0x2a')
    const chainId = call('eth_chainId')
    expect((await post(n.url, chainId)).json).toEqual({ jsonrpc: '2.0', id: chainId.id, result: '0x2a' })
    n.setHead(0x20)
    const batch = [call('eth_blockNumber'), call('eth_getBalance', ['0x00', 'latest'])]
    const answered = (await post(n.url, batch)).json
    expect(answered.map((a: any) => a.result)).toEqual(['0x20', '0x1'])
    expect(answered.map((a: any) => a.id)).toEqual(batch.map((c) => c.id))
    expect(n.requests.map((r) => r.body)).toEqual([chainId, batch])
    // A head poll is kept apart from the requests.
    await post(n.url, call('eth_getBlockByNumber', ['latest', false]))
    expect(n.headPolls).toHaveLength(1)
    expect(n.requests).toHaveLength(2)
  })

  it('keeps a chain: blocks up to the head, finalized 10 below, parent hashes linked; a reorg changes hashes from a block up', async () => {
    const n = await node('0x1')
    n.setHead(30)
    const block = async (tag: string) => (await post(n.url, call('eth_getBlockByNumber', [tag, false]))).json.result
    const latest = await block('latest')
    expect(latest.number).toBe('0x1e')
    expect((await block('finalized')).number).toBe('0x14')
    expect(await block('0x1f')).toBeNull()
    expect(latest.parentHash).toBe((await block('0x1d')).hash)
    const before = [n.hashOf(24), n.hashOf(25)]
    n.reorg(25)
    expect(n.hashOf(24)).toBe(before[0])
    expect(n.hashOf(25)).not.toBe(before[1])
    expect((await block('0x19')).hash).toBe(n.hashOf(25))
    expect((await block('0x1a')).parentHash).toBe(n.hashOf(25))
  })

  it('answers as its script says (status, headers, a raw body), the default where the script gives nothing', async () => {
    const n = await node('0x1', (req) =>
      req.body.method === 'eth_call' ? { body: rpcError(req, 3, 'execution reverted') } : undefined,
    )
    expect((await post(n.url, call('eth_call'))).json.error).toEqual({ code: 3, message: 'execution reverted' })
    expect((await post(n.url, call('eth_chainId'))).json.result).toBe('0x1')
    n.answer((req) => ({ status: 429, headers: { 'retry-after': '7' }, body: result(req, 'slow down') }))
    const res = await fetch(n.url, { method: 'POST', body: JSON.stringify(call('eth_chainId')) })
    expect([res.status, res.headers.get('retry-after'), (await res.json()).result]).toEqual([429, '7', 'slow down'])
    n.answer(() => ({ raw: (r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{"cut') }))
    await expect(post(n.url, call('eth_chainId'))).rejects.toThrow(SyntaxError)
  })

  it('faults: an HTTP status, a reset, a hang, a slow answer; undefined behaves again', async () => {
    const n = await node('0x5')
    n.fault({ kind: 'status', status: 503 })
    const failed = await post(n.url, call('eth_chainId'))
    expect(failed.status).toBe(503)
    expect(failed.json.error).toEqual({ code: -32603, message: 'HTTP 503' })
    n.fault({ kind: 'reset' })
    await expect(post(n.url, call('eth_chainId'))).rejects.toThrow(/fetch failed/)
    n.fault({ kind: 'hang' })
    await expect(post(n.url, call('eth_chainId'), AbortSignal.timeout(150))).rejects.toThrow(/aborted/)
    n.fault({ kind: 'slow', ms: 50 })
    expect((await post(n.url, call('eth_chainId'))).json.result).toBe('0x5')
    n.fault(undefined)
    expect((await post(n.url, call('eth_chainId'))).status).toBe(200)
    // Every request was counted, whatever the fault did with it.
    expect(n.requests).toHaveLength(5)
  })

  it('kill refuses connections; revive listens again on the same port', async () => {
    const n = await node('0x1')
    await n.kill()
    await expect(post(n.url, call('eth_chainId'))).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } })
    await n.revive()
    expect((await post(n.url, call('eth_chainId'))).json.result).toBe('0x1')
  })
})

describe('fake node over WebSocket', () => {
  it('answers calls, keeps eth_subscribe subscriptions, notifies them, unsubscribes', async () => {
    const n = await node('0x7')
    const c = await wsClient(n.wsUrl)
    try {
      expect((await c.ask(call('eth_chainId'))).result).toBe('0x7')
      const sub = (await c.ask(call('eth_subscribe', ['newHeads']))).result
      expect(n.subscriptions).toBe(1)
      n.notify('logs', { other: true }) // no subscription of that kind: nothing sent
      n.notify('newHeads', { number: '0x8' })
      expect(await c.next()).toEqual({
        jsonrpc: '2.0',
        method: 'eth_subscription',
        params: { subscription: sub, result: { number: '0x8' } },
      })
      expect((await c.ask(call('eth_unsubscribe', [sub]))).result).toBe(true)
      expect(n.subscriptions).toBe(0)
      expect(n.wsRequests.map((r) => r.body.method)).toEqual(['eth_chainId', 'eth_subscribe', 'eth_unsubscribe'])
    } finally {
      c.ws.close()
    }
  })

  it('Solana PubSub: integer ids, notifications matched by params, a signature ends with its final result', async () => {
    const n = await node('0x1')
    const c = await wsClient(n.wsUrl)
    try {
      const sig = (await c.ask(call('signatureSubscribe', ['5sig', { commitment: 'confirmed' }]))).result
      expect(Number.isInteger(sig)).toBe(true)
      n.notifySolana('signature', { value: { err: null } }, '["other')
      n.notifySolana('signature', { value: { err: null } }, '["5sig')
      expect(await c.next()).toMatchObject({ method: 'signatureNotification', params: { subscription: sig } })
      expect(n.subscriptions).toBe(0)
      const unknown = await c.ask(call('signatureUnsubscribe', [sig]))
      expect(unknown.error).toEqual({ code: -32602, message: 'Invalid subscription id.' })
      const slot = (await c.ask(call('slotSubscribe'))).result
      expect(n.subscriptions).toBe(1)
      expect((await c.ask(call('slotUnsubscribe', [slot]))).result).toBe(true)
      expect(n.subscriptions).toBe(0)
      expect((await c.ask(call('getGenesisHash'))).result).toBe(n.genesisHash)
    } finally {
      c.ws.close()
    }
  })

  it('the hang fault applies to WebSocket calls too', async () => {
    const n = await node('0x1')
    const c = await wsClient(n.wsUrl)
    try {
      n.fault({ kind: 'hang' })
      c.ws.send(JSON.stringify(call('eth_chainId')))
      while (n.wsRequests.length === 0) await new Promise((r) => setTimeout(r, 5))
      n.fault(undefined)
      // The next message answers the second call: the first was received and never answered.
      const second = call('eth_blockNumber')
      expect((await c.ask(second)).id).toBe(second.id)
    } finally {
      c.ws.close()
    }
  })
})
