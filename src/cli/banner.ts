/**
 * The text `chaingate start` prints once everything runs. For each network: how its blocks are made (an embedded
 * chain with blockTimeSeconds 0 mines only when a transaction arrives, so the block number stays at 0 until then),
 * and its URLs with the form that works on this machine first (the host form only where the name resolves).
 */
import type { ApiKey } from '../keys/repository.ts'
import type { RunningApp } from '../app/build.ts'
import type { NetworkConfig } from '../config/schema.ts'
import { describeTarget } from '../db/database.ts'
import { rpcUrl } from '../shared/rpc-paths.ts'

export interface BannerInput {
  app: RunningApp
  key: ApiKey | undefined
  version: string
  /** "config <file>" or "embedded defaults". */
  source: string
  logFile: string | undefined
  /** network name → whether its host name resolves here. */
  hostsResolve: Record<string, boolean>
}

export function blocksLine(n: NetworkConfig): string {
  if (!n.embedded) return `upstream ${n.upstreams!.map((u) => new URL(u.url).host).join(', ')}`
  if (n.family === 'solana')
    return `embedded Solana devnet (${n.embedded.engine ?? 'litesvm'}): a slot every ${n.embedded.slotMs ?? 400} ms`
  const mining =
    n.embedded.blockTimeSeconds > 0
      ? `a block every ${n.embedded.blockTimeSeconds} s`
      : 'blocks mined on each transaction (the block number stays 0 until one arrives)'
  return `embedded anvil: ${mining}${n.devMethods === false ? '' : '; dev methods on (evm_*, anvil_*)'}`
}

export function startBanner(input: BannerInput): string {
  const { app, key } = input
  const config = app.config
  const base = new URL(app.url)
  const port = base.port
  const lines = [
    '',
    `chaingate ${input.version} is running (${input.source}, data in ${config.dataDir})`,
    `  gateway:   ${app.url}`,
  ]
  if (input.logFile) lines.push(`  log:       ${input.logFile} (request lines; --log-requests stdout shows them here)`)
  // Only when it is not the SQLite file in the data dir (the line above already says where that is).
  if (config.database.url) lines.push(`  database:  ${describeTarget({ url: config.database.url, file: '' })}`)
  const unresolved = config.networks
    .filter((n) => !input.hostsResolve[n.name])
    .map((n) => n.hosts?.[0] ?? `${n.name}.localhost`)
  for (const n of config.networks) {
    const host = app.networks.byName(n.name)!.hosts[0]!
    const chain = n.family === 'solana' ? (app.networks.byName(n.name)!.chain ?? 'solana') : `chain ${n.chainId}`
    lines.push(
      `  network ${n.name} (${chain}): host ${host}:${port}, or path /networks/${n.name}/v3/<key>`,
      `      ${blocksLine(n)}`,
    )
    const funded = app.upstreamUrls.get(n.name)?.accounts
    if (n.embedded && funded !== undefined && funded.length > 0)
      lines.push(
        `      funded: ${funded.length} accounts of the wallet's mnemonic at m/44'/501'/i'/0', 1,000 SOL each:`,
        ...funded.map((a, i) => `        (${i}) ${a}`),
      )
  }
  if (key) {
    const first = app.networks.all[0]!
    const dev = config.gateway.devAccount!
    lines.push('', `  dev API key: ${key.key}   (account ${dev.email}, plan ${dev.plan})`, '', '  endpoints:')
    for (const n of app.networks.all) {
      const url = (form: 'host' | 'path') =>
        rpcUrl({ base, network: n.name, key: key.key, transport: 'http', form, host: n.hosts[0] })
      const [main, other] = input.hostsResolve[n.name] ? (['host', 'path'] as const) : (['path', 'host'] as const)
      lines.push(`    ${n.name}: ${url(main)}`, `      ${other} form: ${url(other)}`)
      // Solana clients take the PubSub endpoint separately (web3.js's wsEndpoint, kit's createSolanaRpcSubscriptions).
      if (n.family === 'solana') {
        const ws = rpcUrl({ base, network: n.name, key: key.key, transport: 'ws', form: 'path', host: n.hosts[0] })
        lines.push(`      WebSocket: ${ws}`)
      }
    }
    if (unresolved.length > 0)
      lines.push(
        `    (path form first: ${unresolved.join(', ')} ${unresolved.length === 1 ? 'does' : 'do'} not resolve ` +
          'on this machine; browsers and curl resolve *.localhost themselves)',
      )
    lines.push(
      '',
      '  try:',
      `    curl -s ${rpcUrl({ base, network: first.name, key: key.key, transport: 'http', form: 'path' })} ` +
        `-H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'`,
    )
  }
  if (config.dashboard.enabled)
    lines.push(
      '',
      `  dashboard: ${app.url}/  (sign up there; ` +
        'or give a CLI account a password: npx chaingate account set-password <email>)',
    )
  if (config.admin.token) lines.push(`  admin API: ${app.url}/admin/v1  (bearer token: admin.token; docs/admin-api.md)`)
  for (const [k, v] of Object.entries(app.info)) lines.push(`  ${k}: ${v}`)
  lines.push('', '  Ctrl-C stops everything.', '')
  return `${lines.join('\n')}\n`
}
