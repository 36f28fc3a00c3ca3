/**
 * Node's built-in fetch keeps Node's own undici when this module runs before the undici package loads, and the CLI
 * entry imports it first. Each case runs in a fresh process: the global dispatcher is set once per process.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'

const here = import.meta.dirname
const dispatcherOfFetch = (first: string, nodeFlags: string[] = []) =>
  execFileSync(
    process.execPath,
    [
      ...nodeFlags,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `${first}
const { Agent } = await import('undici')
const dispatcher = globalThis[Symbol.for('undici.globalDispatcher.1')]
console.log(dispatcher instanceof Agent ? 'package' : 'node')`,
    ],
    { cwd: join(here, '..', '..'), encoding: 'utf8' },
  ).trim()

it("leaves Node's fetch on Node's own undici, where the package would take it over", () => {
  expect(dispatcherOfFetch('')).toBe('package')
  expect(dispatcherOfFetch(`import ${JSON.stringify(join(here, 'builtin-fetch.ts'))}`)).toBe('node')
})

// Node 20 and 22 drop the global with `--no-experimental-fetch`; Node 24 no longer accepts that flag, so the global
// is removed the same way by a preload, on every version.
it('does nothing, and does not fail, in a node without fetch (--no-experimental-fetch)', () => {
  const first = `import ${JSON.stringify(join(here, 'builtin-fetch.ts'))}`
  const withoutFetch = ['--import', 'data:text/javascript,delete globalThis.fetch']
  expect(dispatcherOfFetch(first, withoutFetch)).toBe('package')
})

it('is the first import of the CLI entry', () => {
  const source = readFileSync(join(here, '..', 'cli', 'main.ts'), 'utf8')
  expect(/^import .*$/m.exec(source)?.[0]).toBe("import '../shared/builtin-fetch.ts'")
})
