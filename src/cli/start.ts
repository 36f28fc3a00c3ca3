/**
 * `chaingate start`: runs everything, prints what a newcomer needs (key, URLs, a curl line that works when
 * pasted), and stops everything on Ctrl-C / SIGTERM.
 */
import type { Config } from '../config/schema.ts'
import { ensureDevKey, startApp } from '../app.ts'
import { maskKey } from '../api-keys/repository.ts'
import { appOptions } from '../composition.ts'

export async function runStart(config: Config, configFile: string | undefined): Promise<number> {
  const app = await startApp(appOptions(config))
  let stopping = false
  const shutdown = (signal: string) => {
    if (stopping) return
    stopping = true
    app.logger.info({ signal }, 'stopping')
    const force = setTimeout(() => process.exit(1), 15_000)
    force.unref()
    app.stop().then(
      () => {
        app.logger.flush?.()
        process.exit(0)
      },
      () => process.exit(1),
    )
  }
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))

  const key = await ensureDevKey(app)
  const port = new URL(app.url).port
  const lines = ['', `chaingate is running (${configFile ? `config ${configFile}` : 'embedded defaults'}, data in ${config.dataDir})`, `  gateway:   ${app.url}`]
  for (const n of app.networks.all) lines.push(`  network ${n.name} (chain ${n.chainId}): host ${n.hosts[0]}:${port}, or path /networks/${n.name}/v3/<key>`)
  if (key) {
    const first = app.networks.all[0]!
    lines.push(
      '',
      `  dev API key: ${key.key}   (account ${config.gateway.devAccount!.email}, plan ${config.gateway.devAccount!.plan})`,
      '',
      '  endpoints:',
      ...app.networks.all.map((n) => `    ${n.name}: ${app.url}/networks/${n.name}/v3/${key.key}`),
      '',
      '  try:',
      `    curl -s ${app.url}/networks/${first.name}/v3/${key.key} -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'`,
    )
    app.logger.info({ keyId: key.id, key: maskKey(key.key) }, 'dev key ready')
  }
  if (config.dashboard.enabled)
    lines.push('', `  dashboard: ${app.url}/  (sign up there; or give a CLI account a password: npx chaingate account set-password <email>)`)
  for (const [k, v] of Object.entries(app.info)) lines.push(`  ${k}: ${v}`)
  lines.push('', '  Ctrl-C stops everything.', '')
  process.stdout.write(`${lines.join('\n')}\n`)
  return -1 // keep running
}
