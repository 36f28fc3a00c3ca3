/**
 * The reference of bench/fanout.bench.ts: the least a WebSocket fan-out can do with the same library (ws) — one
 * newHeads subscription at the node, each head serialized once and written to every client in one synchronous loop;
 * no keys, no credits, no ledger, no chunks. HTTP POSTs are answered `eth_chainId` at once (the probe).
 * With `slot` (bench/solana-fanout.bench.ts): one Solana `slotSubscribe` at the node instead, each slotNotification
 * written the same way, in the shape a Solana node (and chaingate) sends it.
 * `node --import tsx bench/minimal-fanout.ts <node-ws-url> [newHeads|slot]`; prints `{"url": "http://…/v3/x"}` once
 * ready; exits when stdin closes.
 */
import { createServer } from 'node:http'
import WebSocket, { WebSocketServer } from 'ws'

const nodeUrl = process.argv[2]
if (!nodeUrl) {
  console.error('usage: node --import tsx bench/minimal-fanout.ts <node-ws-url>')
  process.exit(2)
}

const SOLANA = process.argv[3] === 'slot'
const SUB_ID = SOLANA ? 1 : '0x00000000000000000000000000000001'
const METHOD = SOLANA ? 'slotNotification' : 'eth_subscription'
const frameOf = (result: unknown) =>
  SOLANA
    ? `{"jsonrpc":"2.0","method":"slotNotification","params":{"result":${JSON.stringify(result)},"subscription":1}}`
    : `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${SUB_ID}","result":${JSON.stringify(
        result,
      )}}}`
const clients = new Set<WebSocket>()
const node = new WebSocket(nodeUrl)
await new Promise((r, j) => node.once('open', r).once('error', j))
node.on('message', (data) => {
  const m = JSON.parse(data.toString()) as { method?: string; params?: { result: unknown } }
  if (m.method !== METHOD) return
  const frame = frameOf(m.params!.result)
  for (const ws of clients) ws.send(frame)
})
node.send(
  SOLANA
    ? '{"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}'
    : '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}',
)

const http = createServer((req, res) => {
  req.resume()
  req.on('end', () =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":"0x7a69"}'),
  )
})
const wss = new WebSocketServer({ server: http })
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    const { id } = JSON.parse(data.toString()) as { id: unknown }
    clients.add(ws)
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: SUB_ID }))
  })
  ws.on('close', () => clients.delete(ws))
})
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r))
const { port } = http.address() as { port: number }
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/v3/x` })}\n`)
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
