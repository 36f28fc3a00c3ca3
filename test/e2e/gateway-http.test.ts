import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gunzipSync } from 'node:zlib'
import { request } from 'undici'
import { createPublicClient, http, parseEther, createWalletClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { JsonRpcProvider } from 'ethers'
import { startTestServer, call, type TestServer } from './helpers/server.ts'

// anvil's first well-known test account (public; funded on the devnets).
const TEST_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

const BLOCK_FIELDS = [
  'difficulty',
  'extraData',
  'gasLimit',
  'gasUsed',
  'hash',
  'logsBloom',
  'miner',
  'mixHash',
  'nonce',
  'number',
  'parentHash',
  'receiptsRoot',
  'sha3Uncles',
  'size',
  'stateRoot',
  'timestamp',
  'totalDifficulty',
  'transactions',
  'transactionsRoot',
  'uncles',
]

let s: TestServer
let txHash: `0x${string}`

beforeAll(async () => {
  // Devnet methods off on devnet-a: the refusals below are those of a network on a real node (embedded chains serve
  // evm_*/anvil_* by default; test/e2e/cli-devnet-methods.test.ts).
  s = await startTestServer({
    networks: [
      { name: 'devnet-a', chainId: 31337, embedded: { port: 0 }, devMethods: false },
      { name: 'devnet-b', chainId: 31338, embedded: { port: 0 } },
    ],
  })
  // One transaction on devnet-a so blocks with full transaction objects exist.
  const account = privateKeyToAccount(TEST_PK)
  const wallet = createWalletClient({ account, transport: http(s.endpoint('devnet-a')) })
  const chainId = 31337
  txHash = await wallet.sendTransaction({
    to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    value: parseEther('0.01'),
    chain: {
      id: chainId,
      name: 'devnet-a',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [] } },
    },
  })
})
afterAll(async () => s?.stop())

describe('gateway over HTTP with real clients', () => {
  it('viem reads both embedded chains through the path form, each with its own chain id', async () => {
    const a = createPublicClient({ transport: http(s.endpoint('devnet-a')) })
    const b = createPublicClient({ transport: http(s.endpoint('devnet-b')) })
    expect(await a.getChainId()).toBe(31337)
    expect(await b.getChainId()).toBe(31338)
    expect(await a.getBlockNumber()).toBeGreaterThanOrEqual(1n)
  })

  it('the Host header picks the network on /v3/<key>', async () => {
    for (const [host, chainId] of [
      ['devnet-a.localhost', '0x7a69'],
      ['devnet-b.localhost:1234', '0x7a6a'],
    ] as const) {
      const res = await request(`${s.url}/v3/${s.key.key}`, {
        method: 'POST',
        headers: { host },
        body: JSON.stringify(call('eth_chainId')),
      })
      expect(res.statusCode).toBe(200)
      expect(await res.body.json()).toEqual({ jsonrpc: '2.0', id: 1, result: chainId })
    }
  })

  it('ethers JsonRpcProvider works against the endpoint', async () => {
    const provider = new JsonRpcProvider(s.endpoint('devnet-b'), undefined, { staticNetwork: true })
    expect((await provider.getNetwork()).chainId).toBe(31338n)
    expect(await provider.getBlockNumber()).toBeGreaterThanOrEqual(0)
    provider.destroy()
  })

  it('eth_sendRawTransaction reaches the node and the receipt is readable', async () => {
    const client = createPublicClient({ transport: http(s.endpoint('devnet-a')) })
    const receipt = await client.waitForTransactionReceipt({ hash: txHash })
    expect(receipt.status).toBe('success')
  })

  it('eth_getBlockByNumber returns every field of a block (Ethereum JSON-RPC API) for each tag and a hex number, with and without full transactions', async () => {
    const latest = (await s.rpc(call('eth_blockNumber'))).json().result as string
    for (const tag of ['latest', 'earliest', 'pending', 'safe', 'finalized', latest, '0x0']) {
      for (const full of [false, true]) {
        const res = await s.rpc(call('eth_getBlockByNumber', [tag, full]))
        expect(res.status).toBe(200)
        const block = res.json().result
        expect(block, `${tag} ${full}`).toBeTypeOf('object')
        for (const f of BLOCK_FIELDS) expect(block, `${tag} full=${full} field ${f}`).toHaveProperty(f)
        expect(Array.isArray(block.transactions)).toBe(true)
      }
    }
    // The block holding our transaction: hashes without details, objects with them.
    const receipt = (await s.rpc(call('eth_getTransactionReceipt', [txHash]))).json().result
    const withHashes = (await s.rpc(call('eth_getBlockByNumber', [receipt.blockNumber, false]))).json().result
    expect(withHashes.transactions).toEqual([txHash])
    const withObjects = (await s.rpc(call('eth_getBlockByNumber', [receipt.blockNumber, true]))).json().result
    expect(withObjects.transactions[0].hash).toBe(txHash)
    expect(withObjects.transactions[0].from).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')
  })

  it('eth_getBlockByNumber for a block that does not exist returns null', async () => {
    const res = await s.rpc(call('eth_getBlockByNumber', ['0xffffff', false]))
    expect(res.status).toBe(200)
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: null })
  })

  it('signing methods answer -32601 with Infura wording; eth_accounts is []', async () => {
    for (const m of ['eth_sendTransaction', 'eth_sign']) {
      const res = await s.rpc(call(m, [{}]))
      expect(res.status).toBe(200)
      expect(res.json()).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32601, message: `The method ${m} does not exist/is not available` },
      })
    }
    expect((await s.rpc(call('eth_accounts'))).json()).toEqual({ jsonrpc: '2.0', id: 1, result: [] })
  })

  it("a served method the node does not know passes the node's error through unchanged", async () => {
    // eth_callMany is on the served list (Infura documents it); anvil does not implement it.
    const body = JSON.stringify(call('eth_callMany', [], 7))
    const direct = await (
      await fetch(s.app.upstreamUrls.get('devnet-a')!.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
    ).text()
    const via = await s.rpc(body)
    expect(JSON.parse(via.text)).toEqual(JSON.parse(direct))
    expect(via.json().error.code).toBeTypeOf('number')
  })

  it('node administration namespaces are not exposed', async () => {
    const res = await s.rpc(call('anvil_setBalance', ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x1']))
    expect(res.json().error).toEqual({
      code: -32601,
      message: 'The method anvil_setBalance does not exist/is not available',
    })
  })

  it('a batch answers every call in order, keeping duplicate and string ids', async () => {
    const res = await s.rpc([
      call('eth_chainId', [], 'x'),
      call('eth_accounts', [], 'x'),
      call('eth_blockNumber', [], 3),
      call('eth_sign', [], 4),
    ])
    expect(res.status).toBe(200)
    const out = res.json()
    expect(out.map((r: { id: unknown }) => r.id)).toEqual(['x', 'x', 3, 4])
    expect(out[0].result).toBe('0x7a69')
    expect(out[1].result).toEqual([])
    expect(out[2].result).toMatch(/^0x/)
    expect(out[3].error.code).toBe(-32601)
  })

  it('net_ and web3_ methods reach the node', async () => {
    expect((await s.rpc(call('net_version'))).json().result).toBe('31337')
    expect((await s.rpc(call('web3_clientVersion'))).json().result).toMatch(/anvil/i)
  })

  it('keep-alive: many sequential requests reuse one connection', async () => {
    const { Client } = await import('undici')
    const client = new Client(s.url)
    let connects = 0
    client.on('connect', () => connects++)
    for (let i = 0; i < 20; i++) {
      const res = await client.request({
        path: `/networks/devnet-a/v3/${s.key.key}`,
        method: 'POST',
        body: JSON.stringify(call('eth_chainId')),
      })
      await res.body.text()
    }
    await client.close()
    expect(connects).toBe(1)
  })

  it('large answers are gzipped for clients that accept it (as ethers asks), small ones and others are not', async () => {
    const big = JSON.stringify(Array.from({ length: 200 }, (_, i) => call('eth_chainId', [], i))) // ~8 KB answer
    const post = (body: string, acceptEncoding?: string) =>
      request(s.endpoint(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}),
        },
        body,
      })

    const zipped = await post(big, 'br, gzip, deflate')
    expect(zipped.statusCode).toBe(200)
    expect(zipped.headers['content-encoding']).toBe('gzip')
    expect(zipped.headers.vary).toBe('accept-encoding')
    expect(zipped.headers['x-credits-charged']).toBe(String(200 * 5))
    const bytes = Buffer.from(await zipped.body.arrayBuffer())
    expect(Number(zipped.headers['content-length'])).toBe(bytes.length)
    const answers = JSON.parse(gunzipSync(bytes).toString())
    expect(answers).toHaveLength(200)
    expect(answers[199]).toEqual({ jsonrpc: '2.0', id: 199, result: '0x7a69' })
    expect(bytes.length).toBeLessThan(JSON.stringify(answers).length / 3)

    for (const refused of [undefined, 'identity', 'gzip;q=0, identity']) {
      const plain = await post(big, refused)
      expect(plain.headers['content-encoding'], String(refused)).toBeUndefined()
      expect(JSON.parse(await plain.body.text())).toHaveLength(200)
    }
    const small = await post(JSON.stringify(call('eth_chainId')), 'gzip')
    expect(small.headers['content-encoding']).toBeUndefined()
    expect(small.headers.vary).toBeUndefined()
    expect(await small.body.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })

    // ethers sends Accept-Encoding: gzip; 150 calls in one tick go out as one batch with a ~9 KB (gzipped) answer.
    const provider = new JsonRpcProvider(s.endpoint(), 31337, { staticNetwork: true, batchMaxCount: 200 })
    const balances = await Promise.all(
      Array.from({ length: 150 }, () =>
        provider.send('eth_getBalance', ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x0']),
      ),
    )
    expect(new Set(balances)).toEqual(new Set(['0x21e19e0c9bab2400000']))
    provider.destroy()
  })

  it('CORS preflight is answered so browsers can call the endpoint', async () => {
    const res = await request(s.endpoint(), {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    })
    expect(res.statusCode).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe('*')
    await res.body.text()
  })
})
