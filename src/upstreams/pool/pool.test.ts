import { createServer, type Server } from 'node:http'
import { createServer as createNetServer, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type RunningAnvil } from '../devnet/anvil.ts'
import { ChaingateError } from '../../errors/index.ts'
import { createUpstreamPool } from './pool.ts'

// Two real nodes with different chain ids, so the answer tells which node served a call.
let a: RunningAnvil
let b: RunningAnvil
beforeAll(async () => {
  ;[a, b] = await Promise.all([
    startAnvil({ chainId: 5001, port: 0, blockTimeSeconds: 0 }),
    startAnvil({ chainId: 5002, port: 0, blockTimeSeconds: 0 }),
  ])
})
afterAll(async () => {
  await a?.stop()
  await b?.stop()
})

const chainId = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
const big = (bytes: number) => `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["${'a'.repeat(bytes)}"]}`
const servedBy = async (pool: ReturnType<typeof createUpstreamPool>) =>
  JSON.parse((await pool.send(chainId)).body.toString()).result as string

describe('upstream pool: client input is not node health', () => {
  it('error: a body over maxRequestBytes answers BODY_TOO_LARGE (413, -32600), the node not contacted', async () => {
    const pool = createUpstreamPool('net', [{ url: 'http://127.0.0.1:1/' }], { timeoutMs: 2000, maxRequestBytes: 2048 })
    const err = await pool.send(big(4096)).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ChaingateError)
    expect(err).toMatchObject({
      code: 'BODY_TOO_LARGE',
      httpStatus: 413,
      rpcCode: -32600,
      message: 'request too large for network net: at most 2048 bytes',
    })
    // Multi-byte characters count as bytes.
    expect(await pool.send(`"${'é'.repeat(1100)}"`).catch((e: unknown) => e)).toMatchObject({ code: 'BODY_TOO_LARGE' })
    await pool.close()
  })

  it("security: a large body the node stops reading (EPIPE / ECONNRESET) is the client's error; the node stays in rotation", async () => {
    // A node that drops the connection once a request passes 64 KiB (what anvil does, sometimes, above 2 MiB).
    const node = createNetServer((socket) => {
      let got = 0
      let text = ''
      socket.on('data', (d) => {
        got += d.length
        if (got > 64 * 1024) return void socket.destroy()
        text += d.toString()
        if (text.includes('\r\n\r\n') && text.endsWith('}')) {
          const body = '{"jsonrpc":"2.0","id":1,"result":"0xfa4e"}'
          socket.write(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
          )
          text = ''
        }
      })
      socket.on('error', () => undefined)
    })
    await new Promise<void>((r) => node.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/`
    const pool = createUpstreamPool('net', [{ url }, { url: a.url }], { timeoutMs: 5000 })
    expect(await pool.send(big(2 * 1024 * 1024)).catch((e: unknown) => e)).toMatchObject({
      code: 'BODY_TOO_LARGE',
      httpStatus: 413,
    })
    // With the node in cooldown, both calls would go to anvil.
    expect(new Set([await servedBy(pool), await servedBy(pool)])).toEqual(new Set(['0xfa4e', '0x1389']))
    await pool.close()
    await new Promise((r) => node.close(r))
  })

  it('behavior: anvil above its 2 MiB limit answers -32600 or drops the connection; neither takes a node out of rotation', async () => {
    const pool = createUpstreamPool('net', [{ url: a.url }, { url: b.url }], { timeoutMs: 5000 })
    for (let i = 0; i < 3; i++) {
      const out = await pool.send(big(4 * 1024 * 1024)).then(
        (answer) => JSON.parse(answer.body.toString()).error.code as number,
        (e: ChaingateError) => e.code,
      )
      expect([-32600, 'BODY_TOO_LARGE']).toContain(out)
    }
    expect(new Set([await servedBy(pool), await servedBy(pool)])).toEqual(new Set(['0x1389', '0x138a']))
    await pool.close()
  })

  it("behavior: a notification answered with no content (anvil: 204) is a healthy node's answer", async () => {
    const pool = createUpstreamPool('net', [{ url: a.url }, { url: b.url }], { timeoutMs: 5000 })
    for (const body of [
      '{"jsonrpc":"2.0","method":"eth_chainId","params":[]}',
      '[{"jsonrpc":"2.0","method":"eth_chainId","params":[]}]',
    ])
      expect((await pool.send(body)).body.length).toBe(0)
    expect(new Set([await servedBy(pool), await servedBy(pool)])).toEqual(new Set(['0x1389', '0x138a']))
    await pool.close()
  })

  it('error: a node answering HTTP 413 is not put into cooldown; one answering 503 is', async () => {
    let status = 413
    const node: Server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(status, { 'content-type': 'text/plain' })
        res.end('nope')
      })
    })
    await new Promise<void>((r) => node.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/`
    const pool = createUpstreamPool('net', [{ url }, { url: a.url }], { timeoutMs: 5000 })
    expect(await pool.send(chainId).catch((e: unknown) => e)).toMatchObject({ code: 'BODY_TOO_LARGE', httpStatus: 413 })
    expect(await servedBy(pool)).toBe('0x1389') // rotation: the fake node's turn is over, anvil's comes next
    status = 503
    expect(await servedBy(pool)).toBe('0x1389') // the fake node fails, anvil serves the call and…
    expect(await servedBy(pool)).toBe('0x1389') // …the fake node is skipped while cooling down
    await pool.close()
    await new Promise((r) => node.close(r))
  })
})

describe('upstream pool: provider refusals at the chain id check', () => {
  it('auth-failed: a node refusing the start-up eth_chainId with HTTP 401 is not asked again on every call during its back-off', async () => {
    let asked = 0
    const node: Server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        asked++
        res.writeHead(401, { 'content-type': 'application/json' })
        res.end('{"error":"invalid project id"}')
      })
    })
    await new Promise<void>((r) => node.listen(0, '127.0.0.1', r))
    const pool = createUpstreamPool('net', [{ url: `http://127.0.0.1:${(node.address() as AddressInfo).port}/` }], {
      timeoutMs: 2000,
      chainId: 1,
    })
    await pool.verifyChainId()
    for (let i = 0; i < 3; i++)
      expect(await pool.send(chainId).catch((e: unknown) => e)).toMatchObject({
        code: 'UPSTREAM_AUTH_FAILED',
        httpStatus: 503,
      })
    expect(asked).toBe(1)
    expect(pool.status()).toMatchObject([
      {
        upstream: expect.any(String),
        state: 'down',
        cause: 'unverified',
        reason: expect.stringContaining('credentials'),
      },
    ])
    await pool.close()
    await new Promise((r) => node.close(r))
  })
})

describe('upstream pool: the settled callback (the in-flight dedup cleans up with it)', () => {
  /** Sends and records, in order, the callback's runs and the promise's first reaction. */
  const order = async (pool: ReturnType<typeof createUpstreamPool>, body: string) => {
    const seen: string[] = []
    await pool
      .send(body, undefined, () => seen.push('settled'))
      .then(
        () => seen.push('answer'),
        () => seen.push('failure'),
      )
    return seen
  }

  it('runs once, before any reaction to the answer: one node, several, a refusal, no node reachable', async () => {
    const one = createUpstreamPool('net', [{ url: a.url }], { timeoutMs: 5000 })
    await one.verifyChainId() // heads known: the one-node path, straight to the node
    expect(await order(one, chainId)).toEqual(['settled', 'answer'])
    const several = createUpstreamPool('net', [{ url: a.url }, { url: b.url }], { timeoutMs: 5000 })
    expect(await order(several, chainId)).toEqual(['settled', 'answer'])
    const small = createUpstreamPool('net', [{ url: a.url }], { timeoutMs: 5000, maxRequestBytes: 100 })
    expect(await order(small, big(200))).toEqual(['settled', 'failure'])
    const down = createUpstreamPool('net', [{ url: 'http://127.0.0.1:1/' }], { timeoutMs: 2000 })
    expect(await order(down, chainId)).toEqual(['settled', 'failure'])
    await Promise.all([one.close(), several.close(), small.close(), down.close()])
  })
})
