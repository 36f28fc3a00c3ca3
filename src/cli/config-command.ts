/**
 * `chaingate config validate [FILE]` (for CI pipelines: every problem with its path, exit 1) and
 * `chaingate config show` (the effective config, defaults applied and secrets redacted; YAML, or JSON with --json).
 */
import { stringify } from 'yaml'
import { loadConfig } from '../config/load.ts'
import { redactedConfig } from '../config/show.ts'
import { UsageError } from './usage-error.ts'

export function configCommand(
  sub: string | undefined,
  rest: string[],
  values: { config?: unknown; 'data-dir'?: unknown; json?: unknown },
): number {
  const dataDir = values['data-dir'] ? { dataDir: String(values['data-dir']) } : {}
  if (sub === 'validate') {
    if (rest.length > 1) throw new UsageError('config validate takes one file; see chaingate help config')
    const file = rest[0] ?? (values.config as string | undefined)
    const config = loadConfig(file, dataDir) // a ConfigError is printed by main with every problem, exit 1
    const upstreams = config.networks.reduce((n, net) => n + (net.upstreams?.length ?? 0), 0)
    const what = `${config.networks.length} networks, ${upstreams} upstreams, ${Object.keys(config.plans).length} plans`
    if (values.json) process.stdout.write(`${JSON.stringify({ file: file ?? null, valid: true })}\n`)
    else process.stdout.write(`${file ?? 'the embedded defaults'}: valid (${what})\n`)
    return 0
  }
  if (sub === 'show') {
    if (rest.length > 0) throw new UsageError('config show reads --config FILE; see chaingate help config')
    const shown = redactedConfig(loadConfig(values.config as string | undefined, dataDir))
    process.stdout.write(values.json ? `${JSON.stringify(shown, null, 2)}\n` : stringify(shown, { lineWidth: 0 }))
    return 0
  }
  throw new UsageError(`config needs validate or show${sub ? ` (not "${sub}")` : ''}; see chaingate help config`)
}
