/**
 * `chaingate start` as a real process (issue 2, points 1 and 6): the banner on port 0, the printed key, URLs and
 * curl line, both embedded networks, SIGTERM / SIGKILL leaving no anvil behind, and what survives a restart
 * (dev key, chain state, usage ledger).
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { request } from 'undici'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Chaingate,
  chainProcesses,
  cleanupProcesses,
  removeDirs,
  rpc,
  rpcResult,
  runCli,
  sleep,
  startChaingate,
  tempDir,
  waitNoChainProcesses,
  writeConfig,
} from './helpers/process.ts'
import { describeWithPrograms } from '../support/programs.ts'

const ANVIL_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

describe('chaingate start as a process', { timeout: 90_000 }, () => {
  const dir = tempDir()
  const dataDir = join(dir, 'data')
  const configFile = writeConfig(dir, 'chaingate.yaml', {
    gateway: { port: 0 },
    wallet: { enabled: false },
    log: { requests: false },
  })
  const args = ['--data-dir', dataDir, '--config', configFile]

  let cg: Chaingate | undefined
  let devKey = ''
  /** Successful gateway calls made with the dev key, by method: what the usage ledger must show. */
  const calls: Record<string, number> = {}
  const call = async (url: string, method: string, params: unknown[] = []) => {
    const result = await rpcResult(url, method, params)
    calls[method] = (calls[method] ?? 0) + 1
    return result
  }
  const endpoint = (network: string) => cg!.banner.endpoints[network]!
  let txHash = ''
  let blockAfterTx = 0n
  let recipientBalanceAfterTx = 0n

  const usageByMethod = async () => {
    const r = await runCli(['usage', '--json', '--by', 'method', ...args])
    expect(r.code, r.stderr).toBe(0)
    const report = r.json() as {
      rows: { group: string; calls: number; credits: number; errors: number }[]
      total: { calls: number; credits: number }
    }
    return { report, row: (m: string) => report.rows.find((x) => x.group === m) }
  }
  const expectUsageComplete = async () => {
    const { report, row } = await usageByMethod()
    expect(row('eth_blockNumber')).toMatchObject({
      calls: calls.eth_blockNumber,
      credits: calls.eth_blockNumber! * 80,
      errors: 0,
    })
    const expectedCalls = Object.values(calls).reduce((a, b) => a + b, 0)
    expect(report.total.calls).toBe(expectedCalls)
  }

  beforeAll(() => {
    // Nothing of a previous failed run may be mistaken for ours.
    expect(chainProcesses(dataDir)).toEqual([])
  })

  afterAll(async () => {
    await cleanupProcesses([dataDir])
    removeDirs([dir])
  }, 40_000)

  it('prints the real port (config port 0), a dev key, both endpoints and a curl line', async () => {
    cg = await startChaingate(args)
    const b = cg.banner
    const gw = new URL(b.gatewayUrl)
    expect(gw.protocol).toBe('http:')
    expect(Number(gw.port)).toBeGreaterThan(0)
    expect(b.devKey).toMatch(/^[0-9a-f]{32}$/)
    devKey = b.devKey
    expect(Object.keys(b.networks).sort()).toEqual(['devnet-a', 'devnet-b'])
    expect(b.networks['devnet-a']).toEqual({ chainId: 31337, host: `devnet-a.localhost:${gw.port}` })
    expect(b.networks['devnet-b']).toEqual({ chainId: 31338, host: `devnet-b.localhost:${gw.port}` })
    expect(b.endpoints).toEqual({
      'devnet-a': `${b.gatewayUrl}/networks/devnet-a/v3/${devKey}`,
      'devnet-b': `${b.gatewayUrl}/networks/devnet-b/v3/${devKey}`,
      'solana-devnet': `${b.gatewayUrl}/networks/solana-devnet/v3/${devKey}`,
    })
    expect(b.curl).toContain(b.endpoints['devnet-a'])
    // Anvil of each network runs with its state file in the data dir.
    const anvils = chainProcesses(dataDir).filter((p) => !p.cmdline.startsWith('/bin/sh'))
    expect(anvils.map((p) => /chains\/(\S+)\.json/.exec(p.cmdline)?.[1]).sort()).toEqual([
      'devnet-a',
      'devnet-b',
      'solana-devnet',
    ])
  })

  describeWithPrograms(['curl'], 'the banner', () => {
    it('the printed curl line works when run through sh -c', () => {
      const out = execFileSync('sh', ['-c', cg!.banner.curl], { encoding: 'utf8', timeout: 10_000 })
      calls.eth_blockNumber = (calls.eth_blockNumber ?? 0) + 1
      const body = JSON.parse(out)
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 1 })
      expect(body.result).toMatch(/^0x[0-9a-f]+$/)
    })
  })

  it('the same request works with fetch, and answers carry x-credits-charged', async () => {
    const res = await rpc(endpoint('devnet-a'), 'eth_blockNumber')
    expect(res.status).toBe(200)
    calls.eth_blockNumber = (calls.eth_blockNumber ?? 0) + 1
    expect(res.json().result).toMatch(/^0x[0-9a-f]+$/)
    expect(res.credits).toBe(80)
  })

  it('both networks answer, with different chain IDs (path form and Host form)', async () => {
    expect(await call(endpoint('devnet-a'), 'eth_chainId')).toBe('0x7a69')
    expect(await call(endpoint('devnet-b'), 'eth_chainId')).toBe('0x7a6a')
    // Host form: `/v3/<key>` with Host <network>.localhost (Node cannot resolve *.localhost: connect to 127.0.0.1).
    const gw = new URL(cg!.banner.gatewayUrl)
    for (const [network, chainId] of [
      ['devnet-a', '0x7a69'],
      ['devnet-b', '0x7a6a'],
    ] as const) {
      const res = await request(`${gw.origin}/v3/${devKey}`, {
        method: 'POST',
        headers: { host: cg!.banner.networks[network]!.host, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }),
      })
      expect(res.statusCode).toBe(200)
      expect(((await res.body.json()) as { result: string }).result).toBe(chainId)
      calls.eth_chainId = (calls.eth_chainId ?? 0) + 1
    }
  })

  it('a transaction signed with viem goes through the gateway (eth_sendRawTransaction) and is mined', async () => {
    const url = endpoint('devnet-a')
    const account = privateKeyToAccount(ANVIL_KEY_0)
    const nonce = Number(await call(url, 'eth_getTransactionCount', [account.address, 'pending']))
    const gasPrice = BigInt(await call(url, 'eth_gasPrice'))
    const before = BigInt(await call(url, 'eth_blockNumber'))
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: 31337,
      nonce,
      to: RECIPIENT,
      value: 12_345n,
      gas: 21_000n,
      maxFeePerGas: gasPrice * 2n + 1n,
      maxPriorityFeePerGas: 1n,
    })
    txHash = await call(url, 'eth_sendRawTransaction', [raw])
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/)
    // Automine mines right after the call returns, not within it: wait for the receipt.
    let receipt: unknown = null
    for (let i = 0; i < 100 && receipt === null; i++) {
      receipt = await call(url, 'eth_getTransactionReceipt', [txHash])
      if (receipt === null) await new Promise((r) => setTimeout(r, 50))
    }
    expect(receipt).toMatchObject({ transactionHash: txHash, status: '0x1' })
    blockAfterTx = BigInt(await call(url, 'eth_blockNumber'))
    expect(blockAfterTx).toBe(before + 1n)
    recipientBalanceAfterTx = BigInt(await call(url, 'eth_getBalance', [RECIPIENT, 'latest']))
    // The other network is a different chain: the transaction is not there.
    expect(await call(endpoint('devnet-b'), 'eth_getTransactionReceipt', [txHash])).toBeNull()
  })

  it('SIGTERM: exits 0, leaves no anvil behind, and the usage ledger has every call (N × 80 for eth_blockNumber)', async () => {
    const N = 7
    for (let i = 0; i < N; i++) await call(endpoint(i % 2 ? 'devnet-b' : 'devnet-a'), 'eth_blockNumber')
    // No waiting for the periodic flush: a graceful stop must write what is pending.
    const exit = await cg!.signal('SIGTERM', 20_000)
    expect(exit).toEqual({ code: 0, signal: null })
    expect(await waitNoChainProcesses(dataDir, 2_000)).toEqual([])
    await expectUsageComplete()
  })

  it("restart with the same data dir prints the same dev key and keeps today's usage", async () => {
    cg = await startChaingate(args)
    expect(cg.banner.devKey).toBe(devKey)
    expect(await call(endpoint('devnet-a'), 'eth_chainId')).toBe('0x7a69')
    const { row } = await usageByMethod() // the ledger row from before the restart is still there
    expect(row('eth_sendRawTransaction')).toMatchObject({ calls: 1, credits: 80 })
  })

  // Regression: anvil (run with --quiet) silently skips writing `--state <dataDir>/chains/<network>.json` when the
  // folder is missing; src/upstreams/devnet/anvil.ts creates it.
  it('restart keeps the chain state (the transaction, the block number, the balance)', async () => {
    const url = endpoint('devnet-a')
    expect(BigInt(await call(url, 'eth_blockNumber'))).toBeGreaterThanOrEqual(blockAfterTx)
    expect(await call(url, 'eth_getTransactionReceipt', [txHash])).toMatchObject({
      transactionHash: txHash,
      status: '0x1',
    })
    expect(BigInt(await call(url, 'eth_getBalance', [RECIPIENT, 'latest']))).toBe(recipientBalanceAfterTx)
  })

  it('SIGKILL: anvil is gone within 5 s and usage up to a second before the kill is kept', async () => {
    const M = 5
    for (let i = 0; i < M; i++) await call(endpoint('devnet-b'), 'eth_blockNumber')
    await sleep(1_500) // > gateway.usageFlushMs (1000): everything so far must be on disk
    const exit = await cg!.signal('SIGKILL', 5_000)
    expect(exit.signal).toBe('SIGKILL')
    const left = await waitNoChainProcesses(dataDir, 5_000)
    expect(left, `processes left: ${JSON.stringify(left)}`).toEqual([])
    await expectUsageComplete()
  })
})
