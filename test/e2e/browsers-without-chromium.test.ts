/**
 * The browser files as a newcomer without Chromium runs them (the guard of test/support/programs.ts): `npm test`
 * green with each suite named on stderr, red under CHAINGATE_REQUIRE_SERVICES=1.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/process.ts'

const BROWSER_FILES = [
  'test/e2e/dashboard-browser.test.ts',
  'test/e2e/wallet-browser.test.ts',
  'test/e2e/wallet-console-browser.test.ts',
  'test/e2e/cross-origin-browser.test.ts',
]

/** `vitest run` on files in a child process, as `npm test` would run them, with Chromium hidden. */
function vitestWithoutChromium(
  files: string[],
  extraEnv: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CHAINGATE_TEST_HIDE_PROGRAMS: 'chromium', ...extraEnv }
  // This run's own worker variables would confuse the child vitest.
  for (const k of Object.keys(env)) if (k.startsWith('VITEST')) delete env[k]
  if (!extraEnv.CHAINGATE_REQUIRE_SERVICES) delete env.CHAINGATE_REQUIRE_SERVICES
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...files], {
    cwd: ROOT,
    env: { ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out: `${stderr}\n---\n${stdout}` })))
}

describe('the browser files on a machine without Chromium', { timeout: 120_000 }, () => {
  it('pass, each suite skipped with one stderr line naming chromium and how to install it', async () => {
    const { code, out } = await vitestWithoutChromium(BROWSER_FILES, {})
    expect(code, out).toBe(0)
    const skips = out.split('\n').filter((l) => l.startsWith('SKIPPED suite'))
    expect(skips, out).toHaveLength(4)
    for (const line of skips)
      expect(line).toMatch(/needs chromium \(hidden by CHAINGATE_TEST_HIDE_PROGRAMS\): install with `apt-get install/)
    expect(out).toMatch(/Test Files\s+4 skipped/)
  })

  // The file of issue 32, which failed where the others skipped (one is enough: they share the guard).
  it('fail under CHAINGATE_REQUIRE_SERVICES=1, naming chromium', async () => {
    const { code, out } = await vitestWithoutChromium(['test/e2e/cross-origin-browser.test.ts'], {
      CHAINGATE_REQUIRE_SERVICES: '1',
    })
    expect(code, out).toBe(1)
    expect(out).toMatch(/Test Files\s+1 failed/)
    expect(out).toContain('missing: chromium (hidden by CHAINGATE_TEST_HIDE_PROGRAMS)')
    expect(out).not.toContain('SKIPPED suite')
  })
})
