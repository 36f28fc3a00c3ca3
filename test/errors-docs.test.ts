/**
 * Every code of the error registry is documented in docs/errors.md ("Codes"), with the same JSON-RPC code, HTTP
 * status and credit rule. Another part's registry (for example the wallet's) joins by being added to REGISTRIES.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERROR_REGISTRY, type ErrorSpec } from '../src/errors/registry.ts'

const REGISTRIES: Record<string, Record<string, ErrorSpec>> = { gateway: ERROR_REGISTRY }

const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8')
const section = doc.slice(doc.indexOf('\n## Codes'))
const documented = new Map<string, string[]>()
for (const line of section.split('\n')) {
  const m = /^\| `([A-Z0-9_]+)` \|(.*)\|\s*$/.exec(line)
  if (m)
    documented.set(
      m[1]!,
      m[2]!.split('|').map((c) => c.trim()),
    )
}

describe('docs/errors.md', () => {
  it('has a Codes section', () => {
    expect(section.length).toBeGreaterThan(10)
    expect(documented.size).toBeGreaterThan(0)
  })

  for (const [part, registry] of Object.entries(REGISTRIES))
    it(`documents every ${part} code with its JSON-RPC code, HTTP status and credits`, () => {
      for (const [code, spec] of Object.entries(registry)) {
        const row = documented.get(code)
        expect(row, `${code} is missing from docs/errors.md`).toBeDefined()
        expect(row!.slice(0, 3), code).toEqual([
          spec.rpcCode === null ? '—' : String(spec.rpcCode),
          String(spec.httpStatus),
          spec.credits,
        ])
      }
    })

  it('documents no code the registry does not have', () => {
    const known = new Set(Object.values(REGISTRIES).flatMap((r) => Object.keys(r)))
    expect([...documented.keys()].filter((c) => !known.has(c))).toEqual([])
  })
})
