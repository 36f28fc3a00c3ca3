/**
 * A Node dapp talking to chaingate's wallet through `@metamask/multichain-api-client` and chaingate's WebSocket
 * transport: creates a session on both devnets, reads the latest block on each, subscribes to newHeads (printed
 * as they arrive via wallet_notify), sends a transaction and waits for its receipt, then revokes the session.
 *
 *   npm start                 # in another terminal: gateway, devnets and wallet
 *   npm run example:dapp      # approve the requests in the wallet console (URL printed by npm start)
 *                             # or headless: npx chaingate wallet approvals list / approve <id>
 *
 * Environment: CHAINGATE_WALLET_URL (default ws://127.0.0.1:8546/), DAPP_ORIGIN (default
 * http://example-dapp.localhost), DAPP_CHAINS (default 31337,31338).
 */
import { getMultichainClient } from '@metamask/multichain-api-client'
import { getWebSocketTransport } from 'chaingate/client'

const url = process.env.CHAINGATE_WALLET_URL ?? 'ws://127.0.0.1:8546/'
const origin = process.env.DAPP_ORIGIN ?? 'http://example-dapp.localhost'
const chains = (process.env.DAPP_CHAINS ?? '31337,31338').split(',').map((s) => s.trim())

const transport = getWebSocketTransport({ url, origin })
const client = getMultichainClient({ transport })

// wallet_invokeMethod answers with the envelope {scope, result: {method, result}} (docs/wallet.md), not with
// MetaMask's bare result: the method's own result is `.result.result`.
type Invoke = { scope: string; result: { method: string; result: any } }
const invoke = async (scope: string, method: string, params: unknown): Promise<Invoke> =>
  (await client.invokeMethod({ scope: scope as any, request: { method, params } as any })) as unknown as Invoke
const call = async (scope: string, method: string, params: unknown): Promise<any> =>
  (await invoke(scope, method, params)).result.result

client.onNotification((n: any) => {
  if (n.method === 'wallet_notify' && n.params.notification.method === 'eth_subscription') {
    const head = n.params.notification.params.result
    console.log(`[wallet_notify] ${n.params.scope} new block ${Number(head.number)} ${head.hash}`)
  } else if (n.method === 'wallet_sessionChanged') {
    console.log(
      `[wallet_sessionChanged] scopes: ${Object.keys(n.params.sessionScopes).join(', ') || '(session ended)'}`,
    )
  }
})

async function main(): Promise<void> {
  console.log(`connecting to the wallet at ${url} as ${origin}`)
  console.log(
    'waiting for the wallet user to approve the session (wallet console, or `npx chaingate wallet approvals list`)…',
  )
  const session = await client.createSession({
    optionalScopes: {
      eip155: {
        references: chains,
        methods: [
          'eth_blockNumber',
          'eth_getBlockByNumber',
          'eth_sendTransaction',
          'eth_getTransactionReceipt',
          'eth_subscribe',
          'eth_unsubscribe',
        ],
        notifications: ['eth_subscription'],
      },
    } as any,
  })
  const scopes = Object.keys(session.sessionScopes)
  console.log(`session granted on ${scopes.join(', ')}`)

  const envelope = await invoke(scopes[0]!, 'eth_blockNumber', [])
  console.log(`invokeMethod answer (the envelope): ${JSON.stringify(envelope)}`)

  const subscriptions: [string, string][] = []
  for (const scope of scopes) {
    const block = await call(scope, 'eth_getBlockByNumber', ['latest', false])
    console.log(`${scope}: latest block ${Number(block.number)} ${block.hash}`)
    if (session.sessionScopes[scope as `${string}:${string}`]?.notifications.includes('eth_subscription'))
      subscriptions.push([scope, await call(scope, 'eth_subscribe', ['newHeads'])])
  }

  const scope = scopes[0]!
  const from = session.sessionScopes[scope as `${string}:${string}`]?.accounts?.[0]?.split(':')[2]
  if (!from) throw new Error('the session has no account: approve it with at least one account')
  console.log(`sending 0.001 ETH from ${from} on ${scope}: approve the transaction in the wallet…`)
  const hash: string = await call(scope, 'eth_sendTransaction', [
    { from, to: '0x000000000000000000000000000000000000dEaD', value: '0x38d7ea4c68000' },
  ])
  console.log(`transaction ${hash}`)
  let receipt: any = null
  while (!receipt) {
    receipt = await call(scope, 'eth_getTransactionReceipt', [hash])
    if (!receipt) await new Promise((r) => setTimeout(r, 250))
  }
  console.log(
    `receipt: block ${Number(receipt.blockNumber)}, status ${receipt.status === '0x1' ? 'success' : 'failed'}`,
  )

  await new Promise((r) => setTimeout(r, 500)) // let the newHeads notification arrive
  for (const [s, id] of subscriptions) await call(s, 'eth_unsubscribe', [id])
  await client.revokeSession({})
  console.log('session revoked')
}

main().then(
  () => process.exit(0),
  async (err) => {
    console.error(`example failed: ${err?.message ?? err}`)
    await transport.disconnect()
    process.exit(1)
  },
)
