/**
 * Wallet benchmark (issue 3 "Performance"; not a timed test).
 *   node --import tsx bench/wallet.bench.ts             # wallet wired into the app, vs the gateway's WebSocket
 *   BENCH_MODE=direct node --import tsx bench/wallet.bench.ts   # wallet on direct-chain-access, vs the node
 *
 * 1. wallet_invokeMethod(eth_blockNumber) round trips per second over one dapp connection with IN_FLIGHT requests
 *    in flight, against the same call sent straight to the gateway's WebSocket (or, in direct mode, the node's)
 *    over one connection in the same run: warm-up, then ROUNDS rounds in alternating order, best of each.
 * 2. Time from `evm_mine` to the dapp receiving wallet_notify newHeads (p50, p99), and to a direct node
 *    subscriber receiving the same block, for reference.
 */
import { createWsRpcConnection } from '../src/jsonrpc/ws-connection.ts'
import { startTestServer } from '../test/e2e/helpers/server.ts'
import { dapp, startDevnets, startWallet, CHAIN_A } from '../test/e2e/helpers/wallet.ts'

const CALLS = Number(process.env.CALLS ?? 20000)
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 2))
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 32)
const BLOCKS = Number(process.env.BLOCKS ?? 200)
const SKIP_CALLS = process.env.SKIP_REFERENCE === '1'
const scope = `eip155:${CHAIN_A}`

async function pool(total: number, inFlight: number, fn: () => Promise<unknown>): Promise<number> {
  let started = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (started < total) {
        started++
        await fn()
      }
    }),
  )
  return total / ((performance.now() - t0) / 1000)
}

const rpc = (url: string, method: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  }).then((r) => r.json())

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}

const walletOverrides = { autoApprove: true, maxMessagesPerSecond: 100_000, maxInFlightPerConnection: 10_000 }
let walletUrl: string
let referenceWs: string
let referenceName: string
let stopAll: () => Promise<void>
let mine: () => Promise<unknown>
let solanaScope: string | undefined
if (process.env.BENCH_MODE === 'direct') {
  const devnets = await startDevnets()
  const h = await startWallet(devnets.anvils, walletOverrides)
  walletUrl = h.url
  referenceWs = devnets.anvils[0]!.wsUrl
  referenceName = 'straight to the node'
  mine = () => rpc(devnets.anvils[0]!.url, 'evm_mine')
  stopAll = async () => {
    await h.stop()
    await devnets.stop()
  }
} else {
  const s = await startTestServer(
    {
      log: { level: 'warn', requests: false },
      // The session also holds a Solana scope (issue 28): EVM calls must not pay for it.
      networks: [
        { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
        { name: 'devnet-b', chainId: 31338, embedded: { port: 0 } },
        { name: 'solana-devnet', family: 'solana', embedded: { port: 0 } },
      ],
      wallet: { enabled: true, port: 0, pollMs: 500, keystore: { scryptLogN: 10 }, ...walletOverrides },
    },
    { parts: { wallet: true } },
  )
  walletUrl = s.app.info['wallet (CAIP-25 over WebSocket)']!
  const { key } = await s.newKey('dev') // the wallet's key is on the dev plan too: no throughput limit in the way
  referenceWs = `${s.url.replace(/^http/, 'ws')}/networks/devnet-a/ws/v3/${key.key}`
  referenceName = 'straight to the gateway'
  solanaScope = s.app.networks.byName('solana-devnet')!.chain
  mine = () => rpc(s.app.upstreamUrls.get('devnet-a')!.url, 'evm_mine') // the gateway does not offer evm_mine
  stopAll = () => s.stop()
}
try {
  const d = dapp(walletUrl, 'https://bench.example')
  const session = await d.client.createSession({
    optionalScopes: {
      [scope]: { methods: ['eth_blockNumber', 'eth_subscribe'], notifications: ['eth_subscription'] },
      ...(solanaScope ? { [solanaScope]: { methods: ['signMessage'], notifications: [] } } : {}),
    },
  } as Parameters<typeof d.client.createSession>[0])
  console.log(`session scopes: ${Object.keys(session.sessionScopes).join(', ')}`)

  // The project's one JSON-RPC-over-WebSocket client (also the upstream pools' and subscriptions').
  let referenceErrors = 0
  const headTimes = new Map<string, number>()
  const node = createWsRpcConnection(referenceWs, {
    network: 'reference',
    timeoutMs: 30_000,
    onNotification: (m) => {
      if (m.method === 'eth_subscription')
        headTimes.set((m.params as { result: { number: string } }).result.number, performance.now())
    },
  })
  let id = 0
  const nodeCall = async (method: string, params: unknown[] = []) => {
    const answer = (await node.request({ jsonrpc: '2.0', id: ++id, method, params })) as { error?: unknown }
    if (answer.error) referenceErrors++
  }

  const walletCall = () =>
    d.client.invokeMethod({ scope: scope as any, request: { method: 'eth_blockNumber', params: [] } as any })
  // Warm-up (both paths share most of their code, so whichever ran first used to pay for the JIT), then rounds in
  // alternating order, best round of each reported: this process runs the dapp, the wallet and the gateway at once.
  await pool(3000, IN_FLIGHT, walletCall)
  if (!SKIP_CALLS) await pool(3000, IN_FLIGHT, () => nodeCall('eth_blockNumber'))
  let viaWallet = 0
  let direct = SKIP_CALLS ? Number.NaN : 0
  for (let round = 0; round < ROUNDS; round++) {
    const measureWallet = async () => (viaWallet = Math.max(viaWallet, await pool(CALLS, IN_FLIGHT, walletCall)))
    const measureDirect = async () =>
      (direct = SKIP_CALLS ? direct : Math.max(direct, await pool(CALLS, IN_FLIGHT, () => nodeCall('eth_blockNumber'))))
    if (round % 2 === 0) await measureWallet().then(measureDirect)
    else await measureDirect().then(measureWallet)
  }
  console.log(`eth_blockNumber, ${CALLS} calls, ${IN_FLIGHT} in flight, one connection each, best of ${ROUNDS} rounds:`)
  console.log(`  via wallet_invokeMethod: ${viaWallet.toFixed(0)} req/s`)
  console.log(
    `  ${referenceName.padEnd(23)}: ${direct.toFixed(0)} req/s   ratio ${(viaWallet / direct).toFixed(2)}${
      referenceErrors ? `  (${referenceErrors} error answers!)` : ''
    }`,
  )

  // notification latency
  await nodeCall('eth_subscribe', ['newHeads'])
  await d.client.invokeMethod({
    scope: scope as any,
    request: { method: 'eth_subscribe', params: ['newHeads'] } as any,
  })
  const walletTimes = new Map<string, number>()
  d.client.onNotification((n: any) => {
    if (n.method === 'wallet_notify') walletTimes.set(n.params.notification.params.result.number, performance.now())
  })
  const viaWalletMs: number[] = []
  const directMs: number[] = []
  for (let i = 0; i < BLOCKS; i++) {
    const t0 = performance.now()
    const before = walletTimes.size
    await mine()
    while (walletTimes.size === before) await new Promise((r) => setImmediate(r))
    const [num, t] = [...walletTimes].at(-1)!
    viaWalletMs.push(t - t0)
    const tn = headTimes.get(num)
    if (tn) directMs.push(tn - t0)
  }
  console.log(`evm_mine → newHeads, ${BLOCKS} blocks:`)
  console.log(
    `  wallet_notify at the dapp: p50 ${pct(viaWalletMs, 50).toFixed(2)} ms, p99 ${pct(viaWalletMs, 99).toFixed(2)} ms`,
  )
  console.log(
    `  direct subscriber:         p50 ${pct(directMs, 50).toFixed(2)} ms, p99 ${pct(directMs, 99).toFixed(2)} ms`,
  )
  node.close()
  await d.close()
} finally {
  await stopAll()
}
