#!/usr/bin/env node
// Entry for `npx chaingate` / `npm start`: runs the compiled JavaScript in dist/ (built by `npm ci` through the
// `prepare` script, or `npm run build`). In a git checkout whose src/ changed after the last build, it rebuilds
// first (one line on stderr says so) rather than run stale code. CHAINGATE_RUN_SOURCES=1 runs src/ through tsx
// instead (a devDependency): the test suite uses it so it always tests the sources being edited.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const entry = join(root, 'dist', 'cli', 'main.js')
const sources = join(root, 'src')

if (process.env.CHAINGATE_RUN_SOURCES === '1') {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/main.ts')
} else {
  // CHAINGATE_DIST_CHECKED=1: whoever started this made dist/ current already (the test suite, once before its files
  // start: several test files' children rebuilding at once would race).
  const why = !existsSync(entry)
    ? 'dist/ is missing'
    : process.env.CHAINGATE_DIST_CHECKED !== '1' &&
        existsSync(sources) &&
        newestSource(sources) > statSync(entry).mtimeMs
      ? 'src/ changed since the last build'
      : undefined
  if (why) build(why)
  await import('../dist/cli/main.js')
}

/** Newest mtime of the sources the build reads or copies (tests excluded); ~250 stat calls, about a millisecond. */
function newestSource(dir) {
  let newest = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p))
    else if (!e.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(p).mtimeMs)
  }
  return newest
}

function build(why) {
  let tsc
  try {
    tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc')
  } catch {
    process.stderr.write(
      `chaingate: ${why} and TypeScript is not installed to build it; run \`npm ci\` (it builds dist/) in ${root}\n`,
    )
    process.exit(1)
  }
  process.stderr.write(`chaingate: ${why}; building dist/ (npm run build)…\n`)
  const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  // The rest of `npm run build`: the browser files (dashboard, wallet console) the server reads beside dist/.
  const copied =
    r.status === 0 &&
    spawnSync(process.execPath, [join(root, 'scripts', 'copy-browser-assets.mjs')], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    }).status === 0
  if (!copied || !existsSync(entry)) {
    process.stderr.write('chaingate: the build failed (see above); dist/ was left as it was\n')
    process.exit(1)
  }
}
