/**
 * `${NAME}` in config string values is replaced by the environment variable NAME, so secrets (provider keys in node
 * URLs, database passwords, tokens) can stay out of the file, as in docker compose and Kubernetes manifests.
 * `${NAME:-fallback}` uses the fallback when NAME is unset or empty; `$${` is a literal `${`. A reference to an unset
 * variable without a fallback is a config problem at the value's path, not an empty string.
 */

export interface EnvProblem {
  path: PropertyKey[]
  message: string
}

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{[^}]*\}?/g

/** The raw config with every `${…}` in its strings expanded; object keys are left as they are. */
export function expandEnv(
  raw: unknown,
  env: NodeJS.ProcessEnv = process.env,
): { value: unknown; problems: EnvProblem[] } {
  const problems: EnvProblem[] = []
  const walk = (v: unknown, path: PropertyKey[]): unknown => {
    if (typeof v === 'string') return v.includes('${') ? expandString(v, path) : v
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...path, i]))
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, [...path, k])]))
    return v
  }
  const expandString = (s: string, path: PropertyKey[]) =>
    s.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
      if (match === '$${') return '${'
      if (name === undefined) {
        problems.push({ path, message: `"${match}" is not a valid \${NAME} reference (letters, digits, _)` })
        return match
      }
      const value = env[name]
      if (value !== undefined && value !== '') return value
      if (fallback !== undefined) return fallback
      problems.push({ path, message: `environment variable ${name} is not set (referenced as \${${name}})` })
      return ''
    })
  return { value: walk(raw, []), problems }
}
