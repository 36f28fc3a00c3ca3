/**
 * The guard for programs from outside npm (./helpers/programs.ts): where each is found, what counts as missing, the
 * skip line, and the browser files as a newcomer without Chromium runs them: `npm test` green with each suite named
 * on stderr, red under CHAINGATE_REQUIRE_SERVICES=1.
 */
import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from './helpers/process.ts'
import { locateProgram, missingPrograms } from './helpers/programs.ts'

const dir = mkdtempSync(join(tmpdir(), 'chaingate-programs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A file in its own folder (for a PATH of one entry), executable or not. */
function fakeProgram(name: string, executable = true): { folder: string; path: string } {
  const folder = mkdtempSync(join(dir, 'bin-'))
  const path = join(folder, name)
  writeFileSync(path, '#!/bin/sh\nexit 0\n')
  chmodSync(path, executable ? 0o755 : 0o644)
  return { folder, path }
}

describe('locateProgram', () => {
  it('finds a program on PATH, in PATH order, and not a file that is not executable', () => {
    const first = fakeProgram('kubectl')
    const second = fakeProgram('kubectl')
    const PATH = [join(dir, 'nowhere'), first.folder, second.folder].join(delimiter)
    expect(locateProgram('kubectl', { PATH })).toEqual({ path: first.path })
    const notExecutable = fakeProgram('kubectl', false)
    expect(locateProgram('kubectl', { PATH: notExecutable.folder }).problem).toBe('not found: no kubectl on PATH')
  })

  it("Chromium under each of its packages' names", () => {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
      const p = fakeProgram(name)
      expect(locateProgram('chromium', { PATH: p.folder })).toEqual({ path: p.path })
    }
  })

  it('CHROMIUM, when set, is the one used: found if executable, else missing with the variable named', () => {
    const onPath = fakeProgram('chromium')
    const chosen = fakeProgram('my-chrome')
    expect(locateProgram('chromium', { PATH: onPath.folder, CHROMIUM: chosen.path })).toEqual({ path: chosen.path })
    const missing = join(dir, 'no-such-chromium')
    expect(locateProgram('chromium', { PATH: onPath.folder, CHROMIUM: missing }).problem).toBe(
      `CHROMIUM=${missing} is not an executable file (give an absolute path)`,
    )
  })

  it('CHAINGATE_TEST_HIDE_PROGRAMS makes listed programs missing, and only those', () => {
    const chromium = fakeProgram('chromium')
    const env = { PATH: chromium.folder, CHROMIUM: chromium.path, CHAINGATE_TEST_HIDE_PROGRAMS: 'haproxy, chromium' }
    expect(locateProgram('chromium', env).problem).toBe('hidden by CHAINGATE_TEST_HIDE_PROGRAMS')
    expect(locateProgram('chromium', { ...env, CHAINGATE_TEST_HIDE_PROGRAMS: 'haproxy' })).toEqual({
      path: chromium.path,
    })
  })

  it('missingPrograms names each missing program, why, and how to install it', () => {
    const wrk = fakeProgram('wrk')
    const env = { PATH: wrk.folder, CHAINGATE_TEST_HIDE_PROGRAMS: 'chromium' }
    expect(missingPrograms(['wrk', 'chromium', 'prometheus'], env)).toEqual([
      'chromium (hidden by CHAINGATE_TEST_HIDE_PROGRAMS): install with `apt-get install chromium` (Debian/Ubuntu), ' +
        '`brew install --cask chromium` (macOS), or set CHROMIUM',
      'prometheus (not found: no prometheus on PATH): install with `apt-get install prometheus` ' +
        '(Debian/Ubuntu), `brew install prometheus` (macOS)',
    ])
  })
})

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
