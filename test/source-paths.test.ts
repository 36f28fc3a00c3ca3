/**
 * Every repository path a comment, a doc or a config names (`src/…/x.ts`, `docs/x.md`, `deploy/…`) exists: a file
 * that moved leaves no reader following a dead reference. Anchors inside docs are test/docs-links.test.ts's.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')
/** Tests whose own fixtures are made-up paths. */
const MADE_UP = new Set(['test/docs-links.test.ts', 'test/slow-first-sequencer.test.ts', 'test/source-paths.test.ts'])

const walk = (dir: string, keep: (name: string) => boolean): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'node_modules'
        ? []
        : walk(join(dir, e.name), keep)
      : keep(e.name)
        ? [join(dir, e.name)]
        : [],
  )

const DIRS = 'src|test|bench|deploy|scripts|docs|examples|bin'
const PATH = new RegExp(
  `(?<![\\w./-])((?:${DIRS})/[\\w./-]*[\\w-]\\.(?:ts|md|mjs|js|ya?ml|json|css|cfg|http|sh))\\b`,
  'g',
)

describe('paths named in sources, tests, docs and deploy files', () => {
  it('all exist', () => {
    const code = (n: string) => /\.(ts|js|mjs|css|html)$/.test(n)
    const files = [
      ...walk(join(ROOT, 'src'), code),
      ...walk(join(ROOT, 'test'), code),
      ...walk(join(ROOT, 'bench'), code),
      ...walk(join(ROOT, 'scripts'), code),
      ...walk(join(ROOT, 'docs'), (n) => n.endsWith('.md')),
      ...walk(join(ROOT, 'deploy'), () => true),
      join(ROOT, 'README.md'),
      join(ROOT, 'Dockerfile'),
      join(ROOT, '.ci', 'run'),
    ].filter((f) => !MADE_UP.has(relative(ROOT, f)))
    const missing: string[] = []
    for (const file of files)
      for (const m of readFileSync(file, 'utf8').matchAll(PATH))
        if (!existsSync(join(ROOT, m[1]!))) missing.push(`${relative(ROOT, file)}: ${m[1]}`)
    expect(missing).toEqual([])
  })
})
