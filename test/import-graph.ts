/**
 * The import graph of src/, read with the TypeScript parser (no type checking): what each file imports, and how.
 * Shared by test/architecture.test.ts (forbidden edges, the folder table, cycles).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

/**
 * How a file imports another: `runtime` loads it when the file loads (`import`, `export … from`, also
 * `import { type X }`, which verbatimModuleSyntax keeps as a load); `type` is erased before run time (`import type`,
 * `export type … from`, `import('…').X` in a type); `dynamic` is a literal `import('…')` call, loaded when it runs.
 */
export type ImportKind = 'runtime' | 'type' | 'dynamic'

export interface Import {
  specifier: string
  kind: ImportKind
}

/** Every module specifier a file's text names, with how it imports it. */
export function imports(text: string): Import[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false)
  const out: Import[] = []
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier))
      out.push({ specifier: node.moduleSpecifier.text, kind: node.importClause?.isTypeOnly ? 'type' : 'runtime' })
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      out.push({ specifier: node.moduleSpecifier.text, kind: node.isTypeOnly ? 'type' : 'runtime' })
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      out.push({ specifier: node.arguments[0].text, kind: 'dynamic' })
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      out.push({ specifier: node.argument.literal.text, kind: 'type' })
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

/** Module specifiers a file loads at run time (static imports and re-exports that are not type-only, import()). */
export const runtimeImports = (text: string): string[] =>
  imports(text)
    .filter((i) => i.kind !== 'type')
    .map((i) => i.specifier)

export interface FileImports {
  /** Files under src/ (relative paths), with how each is imported (a file imported twice is listed twice). */
  files: { file: string; kind: ImportKind }[]
  /** Package names loaded at run time (`node:` built-ins left out). */
  packages: string[]
}

/** `file` (relative to src/) → what it imports. */
export type Graph = Map<string, FileImports>

/** Source files of `dir`: tests (`*.test.ts`) and declarations are not part of the program. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory()
      ? sourceFiles(p)
      : p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts')
        ? [p]
        : []
  })
}

/**
 * The graph of every source file under `src`; imports leaving `src` (the test helpers a `*.test-support.ts` file
 * uses) are dropped.
 */
export function buildGraph(src: string): Graph {
  const g: Graph = new Map()
  for (const abs of sourceFiles(src)) {
    const deps: FileImports = { files: [], packages: [] }
    for (const { specifier, kind } of imports(readFileSync(abs, 'utf8'))) {
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(abs), specifier)
        if (target.startsWith(src) && existsSync(target)) deps.files.push({ file: relative(src, target), kind })
      } else if (!specifier.startsWith('node:') && kind !== 'type') deps.packages.push(specifier)
    }
    g.set(relative(src, abs), deps)
  }
  return g
}

export interface Cycle {
  /** The files of one strongly connected group (each reaches every other through imports), sorted. */
  files: string[]
  /** One shortest cycle through the group's first file, as `a.ts → b.ts → a.ts`, for the message. */
  path: string
}

/**
 * Every import cycle of `g`, as strongly connected groups of files (Tarjan's algorithm): a group holds every
 * cycle among its files, so each cycle is reported once, however many paths it has. Every kind of import counts.
 */
export function importCycles(g: Graph): Cycle[] {
  const next = (f: string) => [...new Set((g.get(f)?.files ?? []).map((d) => d.file))]
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const groups: string[][] = []
  const connect = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    onStack.add(v)
    for (const w of next(v)) {
      if (!index.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const group: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      group.push(w)
    } while (w !== v)
    if (group.length > 1 || next(v).includes(v)) groups.push(group.sort())
  }
  for (const v of [...g.keys()].sort()) if (!index.has(v)) connect(v)
  return groups
    .map((files) => ({ files, path: shortestCycle(files[0]!, new Set(files), next).join(' → ') }))
    .sort((a, b) => a.files[0]!.localeCompare(b.files[0]!))
}

/** Breadth-first from `start` within its group back to `start`. */
function shortestCycle(start: string, group: Set<string>, next: (f: string) => string[]): string[] {
  const from = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const f = queue.shift()!
    for (const n of next(f)) {
      if (!group.has(n)) continue
      if (n === start) {
        const path = [start]
        for (let p: string | undefined = f; p !== undefined && p !== start; p = from.get(p)) path.splice(1, 0, p)
        return [...path, start]
      }
      if (!from.has(n)) {
        from.set(n, f)
        queue.push(n)
      }
    }
  }
  return [start]
}
