/**
 * The guard for programs from outside npm (./programs.ts): where each is found, what counts as missing, and the line
 * naming it with how to install it. The browser files on a machine without Chromium:
 * test/e2e/browsers-without-chromium.test.ts.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { locateProgram, missingPrograms } from './programs.ts'

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
