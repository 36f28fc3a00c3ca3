#!/usr/bin/env node
// Lines of the code Biome formats stay within its line width (120). Biome's formatter does not break string
// literals, template literals or comments, so `biome check` alone passes over long ones; this, run by `npm run lint`,
// does not. Counts characters (code points), as Biome does. Left alone: test fixtures (recorded data), and the line
// that opens a test with its title (`it('…', async () => {`): Biome keeps a test's title on that line by design, and
// splitting the title would re-indent the whole test.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const WIDTH = 120
const FOLDERS = ['src', 'test', 'bench', 'examples', 'bin', 'deploy', 'scripts']
const CODE = /\.(ts|mts|js|mjs|cjs)$/
const TEST_TITLE = /^\s*(?:it|test|describe)(?:\.\w+)*\((['"`]).*\1,\s*(?:async\s*)?(?:\(\)\s*=>\s*)?\{$/

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...FOLDERS], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => CODE.test(f) && !f.includes('/fixtures/'))

const long = []
for (const file of files) {
  let text
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    continue // deleted in the work tree, not yet in the index
  }
  text.split('\n').forEach((line, i) => {
    const width = [...line].length
    if (width > WIDTH && !TEST_TITLE.test(line)) long.push(`${file}:${i + 1}: ${width} characters`)
  })
}
if (long.length > 0) {
  console.error(`${long.length} line(s) longer than ${WIDTH} characters:\n${long.join('\n')}`)
  process.exit(1)
}
console.log(`line width: ${files.length} files within ${WIDTH} characters`)
