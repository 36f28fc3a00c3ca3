/**
 * The import graph of src/ (test/import-graph.ts) against what test/architecture-rules.ts declares:
 * - every import of a top-level folder is one its row of MAY_IMPORT allows (every kind of import counts);
 * - every file of a part, and every file it reaches through runtime imports (transitively), stays out of the
 *   forbidden parts: there `import type` and `export type` are erased before run time and do not count, while
 *   `import { type X }` still loads the module (verbatimModuleSyntax) and does;
 * - no import cycle but the known ones (KNOWN_CYCLES), type-only and dynamic imports included.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  BASE_FOLDERS,
  KNOWN_CYCLES,
  MAY_IMPORT,
  PACKAGES,
  PARTS,
  RULES,
  TEST_ONLY,
  TEST_SUPPORT,
  type FolderRule,
  type Part,
  type Rule,
} from './architecture-rules.ts'
import { buildGraph, type FileImports, type Graph, importCycles, imports, runtimeImports } from './import-graph.ts'

const SRC = join(import.meta.dirname, '..', 'src')

export const inPart = (file: string, part: Part) =>
  part.paths.some((p) =>
    p.endsWith('/*') ? file.startsWith(p.slice(0, -1)) && !file.slice(p.length - 1).includes('/') : file.startsWith(p),
  )

const topFolder = (file: string) => file.split('/')[0]!

/** Every import of a folder that its MAY_IMPORT row does not allow: `file → target (kind)`. */
function folderViolations(g: Graph, table: Record<string, FolderRule>): string[] {
  const out: string[] = []
  for (const [file, deps] of g) {
    const from = topFolder(file)
    const may = new Set([from, ...BASE_FOLDERS, ...(table[from]?.may ?? [])])
    for (const d of deps.files) if (!may.has(topFolder(d.file))) out.push(`${file} → ${d.file} (${d.kind})`)
  }
  return [...new Set(out)]
}

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
      for (const { file: next, kind } of deps.files) {
        if (kind === 'type' || seen.has(next)) continue
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

/** A fake graph's file: `files` imported at run time, `types` by `import type`. */
const node = (files: string[], packages: string[] = [], types: string[] = []): FileImports => ({
  files: [
    ...files.map((file) => ({ file, kind: 'runtime' as const })),
    ...types.map((file) => ({ file, kind: 'type' as const })),
  ],
  packages,
})

describe('architecture', () => {
  const g = buildGraph(SRC)

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

  it('every top-level folder of src/ has its row of what it may import, naming only folders that exist', () => {
    const folders = readdirSync(SRC).filter((f) => statSync(join(SRC, f)).isDirectory())
    expect(Object.keys(MAY_IMPORT).sort()).toEqual(folders.sort())
    const unknown = Object.values(MAY_IMPORT).flatMap((r) => r.may.filter((f) => !folders.includes(f)))
    expect(unknown).toEqual([])
  })

  it('each folder imports only itself, the base and what its row allows (type-only and dynamic imports count)', () => {
    expect(folderViolations(g, MAY_IMPORT)).toEqual([])
  })

  it("docs/architecture.md's table of what each folder may import says what MAY_IMPORT says", () => {
    const doc = readFileSync(join(SRC, '..', 'docs', 'architecture.md'), 'utf8')
    const start = doc.indexOf('| folder | may import')
    expect(start).toBeGreaterThan(0)
    const rows = doc.slice(start).split('\n\n')[0]!.split('\n').slice(2)
    const documented: Record<string, string[]> = {}
    for (const row of rows) {
      const [folders, may] = row.split('|').slice(1, 3)
      const names = may!.trim() === '—' ? [] : may!.split(',').map((n) => n.trim())
      for (const [, folder] of folders!.matchAll(/`(\w+)`/g)) documented[folder!] = names.sort()
    }
    const declared = Object.fromEntries(Object.entries(MAY_IMPORT).map(([f, r]) => [f, [...r.may].sort()]))
    expect(documented).toEqual(declared)
    expect(Object.keys(documented)).toEqual(Object.keys(declared))
  })

  it('the folders form layers: each row of the table names only folders of the rows above it', () => {
    const order = Object.keys(MAY_IMPORT)
    const upward = Object.entries(MAY_IMPORT).flatMap(([f, r]) =>
      r.may.filter((m) => order.indexOf(m) >= order.indexOf(f)).map((m) => `${f} → ${m}`),
    )
    expect(upward).toEqual([])
  })

  it('nothing imports app/ but cli/, and no service imports an edge (admin, dashboard), the wallet or app/', () => {
    // Read off the table, so that a row widened by mistake is caught here too.
    const edges = ['admin', 'app', 'dashboard', 'wallet']
    const services = Object.keys(MAY_IMPORT).filter((f) => !['admin', 'app', 'cli', 'dashboard'].includes(f))
    expect(services.filter((f) => MAY_IMPORT[f]!.may.some((m) => edges.includes(m)))).toEqual([])
    expect(Object.keys(MAY_IMPORT).filter((f) => MAY_IMPORT[f]!.may.includes('app'))).toEqual(['cli'])
  })

  it('no production file imports a *.test-support.ts file; what is kept for the tests is read by them alone', () => {
    const production = [...g.keys()].filter((f) => !TEST_SUPPORT.test(f))
    const reached = production.flatMap((f) =>
      g
        .get(f)!
        .files.filter((d) => TEST_SUPPORT.test(d.file))
        .map((d) => `${f} → ${d.file} (${d.kind})`),
    )
    expect(reached).toEqual([])
    for (const only of TEST_ONLY) {
      expect(g.has(only.file)).toBe(true)
      const readers = production.filter((f) => g.get(f)!.files.some((d) => d.file === only.file))
      expect(readers.filter((f) => !only.writers.includes(f))).toEqual([])
    }
  })

  it('has no import cycle but the known ones, and every known one still exists (the list only shrinks)', () => {
    const found = importCycles(g)
    const key = (files: string[]) => files.join(' + ')
    const known = new Set(KNOWN_CYCLES.map((c) => key([...c.files].sort())))
    const current = new Set(found.map((c) => key(c.files)))
    // A new cycle is reported with one of its paths; a known one that is gone or changed is to be taken off the list.
    expect(found.filter((c) => !known.has(key(c.files))).map((c) => c.path)).toEqual([])
    expect([...known].filter((k) => !current.has(k))).toEqual([])
  })

  it('catches a forbidden edge reached through other files, and a forbidden package', () => {
    const fake: Graph = new Map([
      ['gateway/pipeline/a.ts', node(['credits/b.ts'])],
      ['credits/b.ts', node(['gateway/http/c.ts'])],
      ['gateway/http/c.ts', node([], ['fastify'])],
      ['upstreams/d.ts', node([], ['@fastify/websocket'])],
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
      ['methods/catalog.ts', node(['shared/x.ts'])],
      ['shared/x.ts', node(['config/schema.ts'])],
    ])
    expect(violations(leak, base)).toEqual([
      'methods/catalog.ts → shared/x.ts → config/schema.ts',
      'shared/x.ts → config/schema.ts',
    ])
    // Erased before run time: not a runtime edge.
    expect(violations(new Map([['shared/x.ts', node([], [], ['config/schema.ts'])]]), base)).toEqual([])
  })

  it('the folder table counts type-only imports, and allows the base and the folder itself', () => {
    const fake: Graph = new Map([
      ['wallet/a.ts', node(['wallet/b.ts', 'shared/c.ts', 'db/d.ts'], [], ['upstreams/pool/pool.ts'])],
      ['upstreams/pool/pool.ts', node([], [], ['dashboard/x.ts'])],
    ])
    expect(folderViolations(fake, MAY_IMPORT)).toEqual([
      'wallet/a.ts → upstreams/pool/pool.ts (type)',
      'upstreams/pool/pool.ts → dashboard/x.ts (type)',
    ])
  })

  it('finds every cycle once, through type-only imports too, with a path; none in a graph without one', () => {
    const fake: Graph = new Map([
      ['a/1.ts', node(['a/2.ts'])],
      ['a/2.ts', node(['a/3.ts'], [], ['a/1.ts'])],
      ['a/3.ts', node(['a/1.ts', 'b/1.ts'])],
      ['b/1.ts', node([], [], ['b/2.ts'])],
      ['b/2.ts', node(['b/1.ts'])],
      ['c/1.ts', node(['c/1.ts'])],
      ['d/1.ts', node(['a/1.ts', 'b/1.ts'])],
    ])
    expect(importCycles(fake)).toEqual([
      { files: ['a/1.ts', 'a/2.ts', 'a/3.ts'], path: 'a/1.ts → a/2.ts → a/1.ts' },
      { files: ['b/1.ts', 'b/2.ts'], path: 'b/1.ts → b/2.ts → b/1.ts' },
      { files: ['c/1.ts'], path: 'c/1.ts → c/1.ts' },
    ])
    const dag: Graph = new Map([
      ['a/1.ts', node(['a/2.ts', 'a/3.ts'])],
      ['a/2.ts', node(['a/3.ts'])],
      ['a/3.ts', node([])],
    ])
    expect(importCycles(dag)).toEqual([])
  })

  it('a `folder/*` path holds the files directly in the folder, not its sub-folders', () => {
    expect(inPart('wallet/engine.ts', PARTS.walletEngine)).toBe(true)
    expect(inPart('wallet/handlers/index.ts', PARTS.walletEngine)).toBe(true)
    expect(inPart('wallet/listener/server.ts', PARTS.walletEngine)).toBe(false)
    expect(inPart('walletx.ts', PARTS.walletEngine)).toBe(false)
  })

  it('reads every import with its kind, and the runtime ones apart', () => {
    const text =
      "import type { A } from './a.ts'\nexport type { B } from './b.ts'\n" +
      "import { type C, c } from './c.ts'\nimport './d.ts'\nexport { e } from './e.ts'\n" +
      "const f = await import('./f.ts')\nlet g: import('./g.ts').G\nimport x from 'pkg'"
    expect(imports(text)).toEqual([
      { specifier: './a.ts', kind: 'type' },
      { specifier: './b.ts', kind: 'type' },
      { specifier: './c.ts', kind: 'runtime' },
      { specifier: './d.ts', kind: 'runtime' },
      { specifier: './e.ts', kind: 'runtime' },
      { specifier: './f.ts', kind: 'dynamic' },
      { specifier: './g.ts', kind: 'type' },
      { specifier: 'pkg', kind: 'runtime' },
    ])
    expect(runtimeImports(text)).toEqual(['./c.ts', './d.ts', './e.ts', './f.ts', 'pkg'])
  })
})
