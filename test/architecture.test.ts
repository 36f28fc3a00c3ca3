import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

// The framework stays at the edge (brief §6.1): only the listeners (src/http, src/dashboard, src/console) load
// fastify at run time; the core may at most name its types (wiring in app.ts).
const ROOT = join(import.meta.dirname, '..', 'src')
const EDGE = ['http/', 'dashboard/', 'console/']
const IMPORT = /^import[\s\S]*?from ['"]([^'"]+)['"]/gm
const loadsFastify = (text: string) =>
  [...text.matchAll(IMPORT)].some((m) => !m[0].startsWith('import type ') && /^(fastify|@fastify\/.+)$/.test(m[1]!))

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : []
  })
}

describe('import graph', () => {
  it('no core module loads fastify', () => {
    const core = files(ROOT).filter((f) => !EDGE.some((e) => relative(ROOT, f).startsWith(e)))
    expect(core.length).toBeGreaterThan(10)
    const offenders = core.filter((f) => loadsFastify(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f))
    expect(offenders).toEqual([])
  })

  it('the check catches a runtime import', () => {
    expect(loadsFastify("import { x } from 'y'\nimport Fastify from 'fastify'")).toBe(true)
    expect(loadsFastify("import { x } from 'y'\nimport type { FastifyInstance } from 'fastify'")).toBe(false)
  })
})
