/**
 * Reads the config file (YAML or JSON), validates it against the schema and reports every problem with its
 * path, so an operator fixes them all in one go.
 */
import { readFileSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'
import type { z } from 'zod'
import { expandEnv } from './env.ts'
import { ConfigSchema, crossFieldProblems, type Config } from './schema.ts'

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  readonly source: string
  readonly problems: string[]
  constructor(source: string, problems: string[]) {
    super(`invalid config (${source}):\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.source = source
    this.problems = problems
  }

  /** The first problem on one line (`chaingate reload`), pointing at `config validate` for the rest. */
  get line(): string {
    const more =
      this.problems.length > 1
        ? ` (and ${this.problems.length - 1} more: chaingate config validate ${this.source})`
        : ''
    return `invalid config ${this.source}: ${this.problems[0]}${more}`
  }
}

const formatPath = (path: PropertyKey[]) =>
  path.length === 0
    ? '(root)'
    : path
        .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
        .join('.')
        .replace(/\.\[/g, '[')

export function formatIssues(issues: z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) =>
    // An unknown key is reported at its own path, so the operator sees exactly which key to fix.
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((k) => `${formatPath([...issue.path, k])}: unknown key (a typo?)`)
      : [`${formatPath(issue.path)}: ${issue.message}`],
  )
}

/** Validates an already-parsed config object (`${ENV_VAR}` references expanded, defaults applied). */
export function parseConfig(input: unknown, source = 'config'): Config {
  const expanded = expandEnv(input ?? {})
  const raw = expanded.value
  const result = ConfigSchema.safeParse(raw)
  const unset = expanded.problems.map((p) => `${formatPath(p.path)}: `)
  const problems = [
    ...unset.map((at, i) => `${at}${expanded.problems[i]!.message}`),
    // A value whose variable is unset is reported once, for that: not again for the empty string it stood for.
    ...(result.success ? [] : formatIssues(result.error.issues).filter((l) => !unset.some((at) => l.startsWith(at)))),
    ...crossFieldProblems(raw).map((p) => `${formatPath(p.path)}: ${p.message}`),
  ]
  if (problems.length > 0 || !result.success) throw new ConfigError(source, problems)
  return result.data
}

/** Loads a config file; without a file, the embedded defaults. */
export function loadConfig(file?: string, overrides: { dataDir?: string } = {}): Config {
  let raw: unknown = {}
  if (file) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (err) {
      throw new ConfigError(file, [`cannot read file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`])
    }
    try {
      raw = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text)
    } catch (err) {
      throw new ConfigError(file, [`not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`])
    }
  }
  if (overrides.dataDir !== undefined) raw = { ...(raw as object), dataDir: overrides.dataDir }
  return parseConfig(raw, file ?? 'defaults')
}
