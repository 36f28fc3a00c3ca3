/**
 * Before any test file: make dist/ current, once. Child `chaingate` processes run bin/chaingate.mjs, which runs dist/
 * and rebuilds it first when src/ changed since the last build: left to the children, several test files would
 * start that build at once. Running the compiled code costs a child a third of the CPU of loading src/ through tsx
 * (docs/testing.md), and it still tests the sources as edited.
 */
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export default function setup(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  const { CHAINGATE_RUN_SOURCES: _, CHAINGATE_DIST_CHECKED: __, ...env } = process.env
  const run = spawnSync(process.execPath, [join(root, 'bin', 'chaingate.mjs'), '--version'], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 600_000,
  })
  if (run.status !== 0)
    throw new Error(`building dist/ for the tests' child processes failed:\n${run.stderr || run.error?.message}`)
}
