import { startSolanaDevnet } from '../src/upstreams/devnet/solana/devnet.ts'
const d = await startSolanaDevnet({ port: 0, slotMs: 400 })
console.log(d.url)
await new Promise((r) => setTimeout(r, 60_000))
await d.stop()
