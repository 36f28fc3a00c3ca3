/**
 * The wallet alone, without the gateway: two anvil devnets (chain IDs 31337 and 31338), the wallet on
 * 127.0.0.1:$WALLET_PORT (default 8546) reading the devnets directly, state in a temporary data dir.
 * For trying `npm run example:dapp` or a browser dapp against the wallet; `npm start` is the real thing.
 *
 *   node --import tsx examples/standalone-wallet.ts              # approve in the console URL it prints
 *   WALLET_AUTO_APPROVE=1 node --import tsx examples/standalone-wallet.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { WalletConfigSchema } from '../src/config/wallet-schema.ts'
import { openDatabase } from '../src/db/database.ts'
import { startAnvil } from '../src/upstreams/devnet/anvil.ts'
import { createDirectChainAccess } from '../src/wallet/direct-chain-access.ts'
import { createWalletService } from '../src/wallet/listener/start.ts'

const anvils = await Promise.all([
  startAnvil({ chainId: 31337, port: 0, blockTimeSeconds: 0 }),
  startAnvil({ chainId: 31338, port: 0, blockTimeSeconds: 0 }),
])
const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-wallet-'))
const database = await openDatabase(join(dataDir, 'chaingate.sqlite'))
const chainAccess = createDirectChainAccess(
  anvils.map((a, i) => ({ chainId: a.chainId, network: `devnet-${i}`, url: a.url, wsUrl: a.wsUrl })),
)
const service = createWalletService({
  config: WalletConfigSchema.parse({
    port: Number(process.env.WALLET_PORT ?? 8546),
    autoApprove: process.env.WALLET_AUTO_APPROVE === '1',
  }),
  dataDir,
  db: database.db,
  chainAccess,
  networks: anvils.map((_a, i) => ({ name: `devnet-${i}`, embedded: true })),
  logger: pino({ level: 'info' }),
})
const started = await service.start()
console.log(
  `wallet:  ${started.url}\nconsole: ${started.consoleUrl}\n` +
    `data:    ${dataDir}  (CLI: npx chaingate wallet … --data-dir ${dataDir})`,
)

let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await service.stop()
  await database.close()
  await chainAccess.close()
  await Promise.all(anvils.map((a) => a.stop()))
  rmSync(dataDir, { recursive: true, force: true })
  process.exit(0)
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
