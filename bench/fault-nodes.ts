/**
 * Upstream nodes for bench/upstreams.bench.ts, in their own process so the load generator and the gateway do not
 * share their event loop: the scriptable fake node of the tests (test/support/fake-node.ts), N of them.
 *
 * `node --import tsx bench/fault-nodes.ts <count>` prints one JSON line `{"urls": [...]}` once listening, then
 * reads commands on stdin, one per line, answering `ok` per command: `kill <i>`, `revive <i>`, `hang <i>`,
 * `slow <i> <ms> <share>`, `heal <i>`. Exits when stdin closes.
 */
import { createInterface } from 'node:readline'
import { startFakeNode } from '../test/support/fake-node.ts'

const count = Number(process.argv[2] ?? 2)
const nodes = await Promise.all(Array.from({ length: count }, () => startFakeNode('0x7a69')))
for (const n of nodes) n.setHead(1000)
process.stdout.write(`${JSON.stringify({ urls: nodes.map((n) => n.url) })}\n`)

const lines = createInterface({ input: process.stdin })
lines.on('line', async (line) => {
  const [cmd, i, a, b] = line.trim().split(/\s+/)
  const n = nodes[Number(i)]!
  if (cmd === 'kill') await n.kill()
  else if (cmd === 'revive') await n.revive()
  else if (cmd === 'hang') n.fault({ kind: 'hang' })
  else if (cmd === 'slow') n.fault({ kind: 'slow', ms: Number(a), share: Number(b) })
  else if (cmd === 'heal') n.fault(undefined)
  process.stdout.write('ok\n')
})
lines.on('close', () => process.exit(0))
