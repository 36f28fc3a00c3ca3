/**
 * The suite's file order and the Node 24 file list (docs/testing.md): the slowest files start first whatever vitest's
 * cache says, the others keep vitest's order, and both lists name files that exist.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import type { TestSpecification, Vitest } from 'vitest/node'
import { NODE_VERSION_TESTS } from '../scripts/node-version-tests.mjs'
import { ROOT } from './e2e/helpers/process.ts'
import { SLOWEST_FILES, SlowFirstSequencer } from './slow-first-sequencer.ts'

it('every listed file exists', () => {
  const lists = [...SLOWEST_FILES, ...Object.values(NODE_VERSION_TESTS as Record<string, string[]>).flat()]
  expect(lists.filter((f) => !existsSync(join(ROOT, f)))).toEqual([])
})

it('starts the listed files first, in the listed order; the rest keep the order of the cached durations', async () => {
  const project = { name: '', config: { sequence: { groupOrder: 0 }, isolate: true } }
  const spec = (file: string) => ({ moduleId: join(ROOT, file), project }) as unknown as TestSpecification
  // vitest's cache: these two ran before, a.test.ts for longer; the listed files ran quickly last time.
  const durations: Record<string, number> = { 'src/a.test.ts': 900, 'src/b.test.ts': 50 }
  for (const f of SLOWEST_FILES) durations[f] = 1
  const ctx = {
    config: { root: ROOT, shard: undefined },
    cache: {
      getFileTestResults: (key: string) => {
        const d = durations[key.slice(1)]
        return d === undefined ? undefined : { duration: d, failed: false }
      },
      getFileStats: () => ({ size: 1 }),
    },
  } as unknown as Vitest
  const files = ['src/b.test.ts', SLOWEST_FILES[1]!, 'src/a.test.ts', SLOWEST_FILES[0]!]
  const sorted = await new SlowFirstSequencer(ctx).sort(files.map(spec))
  expect(sorted.map((s) => s.moduleId.slice(ROOT.length + 1))).toEqual([
    SLOWEST_FILES[0],
    SLOWEST_FILES[1],
    'src/a.test.ts',
    'src/b.test.ts',
  ])
})
