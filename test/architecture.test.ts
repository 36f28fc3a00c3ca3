/**
 * The runtime import graph of src/ against the declared parts and forbidden edges (test/architecture-rules.ts):
 * every file of a part, and every file it reaches through runtime imports (transitively), stays out of the
 * forbidden parts. `import type` and `export type` are erased before run time and do not count; `import { type X }`
 * still loads the module (verbatimModuleSyntax) and does.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { PACKAGES, PARTS, RULES, type Part, type Rule } from './architecture-rules.ts'

const SRC = join(import.meta.dirname, '..', 'src')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory()
      ? files(p)
      : p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts')
        ? [p]
        : []
  })
}

/**
 * Module specifiers a file loads at run time (static imports and re-exports that are not type-only, dynamic import()).
 */
export function runtimeImports(text: string): string[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false)
  const out: string[] = []
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier))
      out.push(node.moduleSpecifier.text)
    else if (
      ts.isExportDeclaration(node) &&
      !node.isTypeOnly &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      out.push(node.moduleSpecifier.text)
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      out.push(node.arguments[0].text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

/** `file` → what it imports: files under src/ (relative paths) and package names. */
function graph(): Graph {
  const g: Graph = new Map()
  for (const abs of files(SRC)) {
    const deps = { files: [] as string[], packages: [] as string[] }
    for (const spec of runtimeImports(readFileSync(abs, 'utf8'))) {
      if (spec.startsWith('.')) {
        const target = resolve(dirname(abs), spec)
        if (target.startsWith(SRC) && existsSync(target)) deps.files.push(relative(SRC, target))
      } else if (!spec.startsWith('node:')) deps.packages.push(spec)
    }
    g.set(relative(SRC, abs), deps)
  }
  return g
}

export const inPart = (file: string, part: Part) =>
  part.paths.some((p) =>
    p.endsWith('/*') ? file.startsWith(p.slice(0, -1)) && !file.slice(p.length - 1).includes('/') : file.startsWith(p),
  )

type Graph = Map<string, { files: string[]; packages: string[] }>

/** Every runtime import path from a file of `rule.from` into a forbidden part or package. */
function violations(g: Graph, rule: Rule): string[] {
  const offenders: string[] = []
  for (const start of [...g.keys()].filter((f) => inPart(f, PARTS[rule.from]))) {
    // Breadth-first over runtime imports, remembering the path for the message.
    const seen = new Map<string, string[]>([[start, [start]]])
    const queue = [start]
    while (queue.length > 0) {
      const file = queue.shift()!
      const via = seen.get(file)!
      const deps = g.get(file)
      if (!deps) continue
      for (const forbidden of rule.never) {
        const pkg = PACKAGES[forbidden]
        if (pkg) for (const p of deps.packages) if (pkg.test(p)) offenders.push(`${via.join(' → ')} → ${p}`)
      }
      for (const next of deps.files) {
        if (seen.has(next)) continue
        const path = [...via, next]
        seen.set(next, path)
        for (const forbidden of rule.never) {
          const part = (PARTS as Record<string, Part>)[forbidden]
          if (part && inPart(next, part)) offenders.push(path.join(' → '))
        }
        queue.push(next)
      }
    }
  }
  return [...new Set(offenders)]
}

describe('architecture', () => {
  const g = graph()

  it('finds the source tree', () => {
    expect(g.size).toBeGreaterThan(50)
    for (const part of Object.values(PARTS)) expect([...g.keys()].some((f) => inPart(f, part))).toBe(true)
  })

  it('every file is in exactly one layer: base, config or domain', () => {
    const layers = [PARTS.base, PARTS.config, PARTS.domain]
    const misplaced = [...g.keys()].filter((f) => layers.filter((l) => inPart(f, l)).length !== 1)
    expect(misplaced).toEqual([])
  })

  for (const rule of RULES)
    it(`${rule.from} never reaches ${rule.never.join(', ')} at run time (${rule.why})`, () => {
      expect(violations(g, rule)).toEqual([])
    })

  it('catches a forbidden edge reached through other files, and a forbidden package', () => {
    const fake: Graph = new Map([
      ['gateway/pipeline/a.ts', { files: ['credits/b.ts'], packages: [] }],
      ['credits/b.ts', { files: ['gateway/http/c.ts'], packages: [] }],
      ['gateway/http/c.ts', { files: [], packages: ['fastify'] }],
      ['upstreams/d.ts', { files: [], packages: ['@fastify/websocket'] }],
    ])
    const core = RULES.find((r) => r.from === 'core')!
    expect(violations(fake, core)).toEqual([
      'gateway/pipeline/a.ts → credits/b.ts → gateway/http/c.ts',
      'gateway/pipeline/a.ts → credits/b.ts → gateway/http/c.ts → fastify',
      'credits/b.ts → gateway/http/c.ts',
      'credits/b.ts → gateway/http/c.ts → fastify',
      'upstreams/d.ts → @fastify/websocket',
    ])
    const base = RULES.find((r) => r.from === 'base')!
    const leak: Graph = new Map([
      ['methods/catalog.ts', { files: ['shared/x.ts'], packages: [] }],
      ['shared/x.ts', { files: ['config/schema.ts'], packages: [] }],
    ])
    expect(violations(leak, base)).toEqual([
      'methods/catalog.ts → shared/x.ts → config/schema.ts',
      'shared/x.ts → config/schema.ts',
    ])
  })

  it('a `folder/*` path holds the files directly in the folder, not its sub-folders', () => {
    expect(inPart('wallet/engine.ts', PARTS.walletEngine)).toBe(true)
    expect(inPart('wallet/handlers/index.ts', PARTS.walletEngine)).toBe(true)
    expect(inPart('wallet/listener/server.ts', PARTS.walletEngine)).toBe(false)
    expect(inPart('walletx.ts', PARTS.walletEngine)).toBe(false)
  })

  it('reads only runtime imports', () => {
    expect(runtimeImports("import type { A } from './a.ts'\nexport type { B } from './b.ts'")).toEqual([])
    expect(
      runtimeImports(
        "import { type A, b } from './a.ts'\nimport './c.ts'\n" +
          "export { d } from './d.ts'\nconst e = await import('./e.ts')",
      ),
    ).toEqual(['./a.ts', './c.ts', './d.ts', './e.ts'])
  })
})
