/**
 * Embedded devnets answer the local-devnet methods (evm_*, anvil_*, hardhat_* aliases) through the gateway with a
 * normal key, priced from the cost table; a network on an external node refuses them with Infura's -32601 body,
 * and `networks[].devMethods` switches them per network. Real anvil behind a real gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const notAvailable = (method: string) => ({
  jsonrpc: '2.0',
  id: 1,
  error: { code: -32601, message: `The method ${method} does not exist/is not available` },
})

describe('devnet methods', { timeout: 60_000 }, () => {
  let local: TestServer
  let remote: TestServer

  beforeAll(async () => {
    local = await startTestServer({
      networks: [
        { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
        { name: 'plain', chainId: 31338, embedded: { port: 0 }, devMethods: false },
      ],
    })
    // Another gateway whose networks use the first one's anvil as an external node: dev methods are off by default
    // there, and on when the operator says so.
    const anvil = local.app.upstreamUrls.get('devnet-a')!
    // Each external network on a chain of its own id: start-up checks every upstream's eth_chainId.
    const plainAnvil = local.app.upstreamUrls.get('plain')!
    remote = await startTestServer({
      networks: [
        { name: 'ext', chainId: 31337, upstreams: [{ url: anvil.url }] },
        {
          name: 'ext-dev',
          chainId: 31338,
          hosts: ['ext-dev.localhost'],
          upstreams: [{ url: plainAnvil.url }],
          devMethods: true,
        },
      ],
    })
  }, 60_000)

  afterAll(async () => {
    await remote?.stop()
    await local?.stop()
  }, 30_000)

  const result = async (server: TestServer, method: string, params: unknown[] = [], network = 'devnet-a') => {
    const r = await server.rpc(call(method, params), { network })
    expect(r.status, r.text).toBe(200)
    const body = r.json()
    expect(body.error, r.text).toBeUndefined()
    return { result: body.result, credits: r.credits }
  }

  it('evm_snapshot, evm_mine and evm_revert work on an embedded network with a normal key, charged per the cost table', async () => {
    const start = BigInt((await result(local, 'eth_blockNumber')).result)
    const snap = await result(local, 'evm_snapshot')
    expect(snap.result).toMatch(/^0x[0-9a-f]+$/)
    expect(snap.credits).toBe(local.app.config.credits.methods.evm_snapshot)
    const mined = await result(local, 'evm_mine')
    expect(mined.credits).toBe(80)
    await result(local, 'anvil_mine', ['0x2'])
    expect(BigInt((await result(local, 'eth_blockNumber')).result)).toBe(start + 3n)
    expect((await result(local, 'evm_revert', [snap.result])).result).toBe(true)
    expect(BigInt((await result(local, 'eth_blockNumber')).result)).toBe(start)
  })

  it('time and balances: evm_increaseTime, hardhat_setBalance; eth_sendTransaction and impersonation stay refused', async () => {
    const who = '0x00000000000000000000000000000000c0ffee01'
    await result(local, 'hardhat_setBalance', [who, '0xde0b6b3a7640000'])
    expect(BigInt((await result(local, 'eth_getBalance', [who, 'latest'])).result)).toBe(10n ** 18n)
    const before = BigInt((await result(local, 'eth_getBlockByNumber', ['latest', false])).result.timestamp)
    await result(local, 'evm_increaseTime', [3600])
    await result(local, 'evm_mine')
    expect(
      BigInt((await result(local, 'eth_getBlockByNumber', ['latest', false])).result.timestamp) - before >= 3600n,
    ).toBe(true)
    // anvil holds the wallet's devnet accounts unlocked: through a key, nothing may send from them unapproved.
    const walletAccount = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
    for (const [method, params] of [
      ['eth_sendTransaction', [{ from: walletAccount, to: who, value: '0x1' }]],
      ['anvil_impersonateAccount', [who]],
      ['hardhat_impersonateAccount', [who]],
    ] as const) {
      const r = await local.rpc(call(method, [...params]))
      expect([method, r.json()]).toEqual([method, notAvailable(method)])
    }
    expect(BigInt((await result(local, 'eth_getBalance', [who, 'latest'])).result)).toBe(10n ** 18n)
  })

  it("refuses them with Infura's -32601 body on a network with an external node, and where devMethods is false", async () => {
    for (const [server, network] of [
      [remote, 'ext'],
      [local, 'plain'],
    ] as const)
      for (const method of [
        'evm_snapshot',
        'evm_mine',
        'anvil_setBalance',
        'hardhat_impersonateAccount',
        'eth_sendTransaction',
      ]) {
        const r = await server.rpc(call(method, []), { network })
        expect([network, method, r.status, r.json()]).toEqual([network, method, 200, notAvailable(method)])
      }
    // The same node answers ordinary calls through that network.
    expect((await result(remote, 'eth_chainId', [], 'ext')).result).toBe('0x7a69')
  })

  it('serves them on an external node when the network sets devMethods: true; never the ones that fetch URLs or change the chain id', async () => {
    expect((await result(remote, 'evm_snapshot', [], 'ext-dev')).result).toMatch(/^0x/)
    for (const method of ['anvil_reset', 'hardhat_reset', 'anvil_setRpcUrl', 'anvil_setChainId']) {
      const r = await local.rpc(call(method, []))
      expect([method, r.json()]).toEqual([method, notAvailable(method)])
    }
  })
})
