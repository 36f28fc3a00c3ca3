/**
 * Programs from outside npm that some tests run (Chromium, HAProxy, Prometheus, kubectl, …): one table of where
 * each is found and how to install it, and the one guard every such suite goes through. A suite whose program is
 * missing is skipped with one line on stderr naming the program and how to install it; with
 * CHAINGATE_REQUIRE_SERVICES=1 (CI, `.ci/run`, which installs those the tests run) it fails instead. ./services.ts
 * uses the same guard for PostgreSQL and Redis.
 *
 * CHAINGATE_TEST_HIDE_PROGRAMS=chromium,haproxy treats the listed programs as missing, to see what a machine without
 * them gets (README, "Test it").
 */
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import { describe, it } from 'vitest'

export type Program =
  | 'chromium'
  | 'haproxy'
  | 'prometheus'
  | 'promtool'
  | 'kubectl'
  | 'wrk'
  | 'podman'
  | 'podman-compose'
  | 'runc'
  | 'mmdebstrap'
  | 'redis-server'
  | 'redis-cli'
  | 'curl'

interface ProgramEntry {
  /** Names looked up on PATH, in order. */
  names: readonly string[]
  /** Absolute paths tried after PATH (where packages put it when PATH lacks the folder). */
  paths?: readonly string[]
  /** An environment variable naming the executable: when set, it alone is used. */
  env?: string
  /** How to install it, for the skip line. */
  install: string
}

/** Debian/Ubuntu package first (what `.ci/run` installs), then Homebrew. */
export const PROGRAMS: Readonly<Record<Program, ProgramEntry>> = {
  chromium: {
    // Debian: chromium; Ubuntu: chromium-browser; Google's packages: google-chrome(-stable). playwright-core drives
    // any of them (https://playwright.dev/docs/api/class-browsertype#browser-type-launch-option-executable-path).
    names: ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'],
    paths: [
      '/usr/bin/chromium',
      '/usr/bin/chromium-browser',
      '/usr/bin/google-chrome',
      '/usr/bin/google-chrome-stable',
      '/snap/bin/chromium',
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    ],
    env: 'CHROMIUM',
    install: '`apt-get install chromium` (Debian/Ubuntu), `brew install --cask chromium` (macOS), or set CHROMIUM',
  },
  haproxy: {
    names: ['haproxy'],
    // Debian installs it in /usr/sbin, which a user's PATH may lack.
    paths: ['/usr/sbin/haproxy'],
    install: '`apt-get install haproxy` (Debian/Ubuntu), `brew install haproxy` (macOS)',
  },
  prometheus: {
    names: ['prometheus'],
    install: '`apt-get install prometheus` (Debian/Ubuntu), `brew install prometheus` (macOS)',
  },
  promtool: {
    names: ['promtool'],
    install: '`apt-get install prometheus` (Debian/Ubuntu), `brew install prometheus` (macOS)',
  },
  kubectl: {
    names: ['kubectl'],
    install: '`apt-get install kubernetes-client` (Debian/Ubuntu), `brew install kubectl` (macOS)',
  },
  wrk: { names: ['wrk'], install: '`apt-get install wrk` (Debian/Ubuntu), `brew install wrk` (macOS)' },
  podman: { names: ['podman'], install: '`apt-get install podman` (Debian/Ubuntu), `brew install podman` (macOS)' },
  // The container tests (test/e2e/containers/podman.ts): compose files, the runtime podman is set to, and the
  // Debian root the stand-in images are built from.
  'podman-compose': { names: ['podman-compose'], install: '`apt-get install podman-compose` (Debian/Ubuntu)' },
  runc: { names: ['runc'], paths: ['/usr/sbin/runc'], install: '`apt-get install runc` (Debian/Ubuntu)' },
  mmdebstrap: { names: ['mmdebstrap'], install: '`apt-get install mmdebstrap` (Debian/Ubuntu)' },
  'redis-server': {
    names: ['redis-server'],
    install: '`apt-get install redis-server` (Debian/Ubuntu), `brew install redis` (macOS)',
  },
  'redis-cli': {
    names: ['redis-cli'],
    install: '`apt-get install redis-tools` (Debian/Ubuntu), `brew install redis` (macOS)',
  },
  curl: { names: ['curl'], install: '`apt-get install curl` (Debian/Ubuntu), `brew install curl` (macOS)' },
}

/** CI sets this: a missing service or program is then a failure, not a skip. */
export const servicesRequired = process.env.CHAINGATE_REQUIRE_SERVICES === '1'

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

export type Found = { path: string; problem?: undefined } | { path?: undefined; problem: string }

/** Where `program` is, or why it counts as missing. `env` is for the guard's own tests. */
export function locateProgram(program: Program, env: NodeJS.ProcessEnv = process.env): Found {
  const entry = PROGRAMS[program]
  const hidden = (env.CHAINGATE_TEST_HIDE_PROGRAMS ?? '').split(',').map((s) => s.trim())
  if (hidden.includes(program)) return { problem: 'hidden by CHAINGATE_TEST_HIDE_PROGRAMS' }
  const chosen = entry.env ? env[entry.env] : undefined
  if (chosen) {
    return isAbsolute(chosen) && isExecutableFile(chosen)
      ? { path: chosen }
      : { problem: `${entry.env}=${chosen} is not an executable file (give an absolute path)` }
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean)
  for (const name of entry.names) {
    for (const dir of dirs) {
      const path = join(dir, name)
      if (isExecutableFile(path)) return { path }
    }
  }
  for (const path of entry.paths ?? []) if (isExecutableFile(path)) return { path }
  const names = entry.names.length > 1 ? `${entry.names.slice(0, -1).join(', ')} or ${entry.names.at(-1)}` : program
  // The folders (or app bundles) of the fixed paths, for a line a person can read.
  const folders = [...new Set((entry.paths ?? []).map((p) => p.split('/').slice(0, 3).join('/')))]
  const where = `on PATH${folders.length > 0 ? ` or in ${folders.join(', ')}` : ''}`
  return { problem: `not found: no ${names} ${where}${entry.env ? `, ${entry.env} unset` : ''}` }
}

/** The executable's path; throws when missing (call it inside a guarded suite). */
export function programPath(program: Program): string {
  const found = locateProgram(program)
  if (found.path === undefined) throw new Error(`${program}: ${found.problem}`)
  return found.path
}

/** The programs of `needs` that are missing, each with why and how to install it (empty when all are there). */
export function missingPrograms(needs: readonly Program[], env: NodeJS.ProcessEnv = process.env): string[] {
  return needs.flatMap((p) => {
    const found = locateProgram(p, env)
    return found.problem === undefined ? [] : [`${p} (${found.problem}): install with ${PROGRAMS[p].install}`]
  })
}

/**
 * The guard: `describe(name, body)` when nothing is `missing`; otherwise one stderr line naming the suite and what
 * is missing and the suite skipped, or, with CHAINGATE_REQUIRE_SERVICES=1, one failing test in its place.
 */
export function describeUnlessMissing(missing: readonly string[], name: string, body: () => void): void {
  if (missing.length === 0) {
    describe(name, body)
    return
  }
  if (servicesRequired) {
    describe(name, () => {
      it('has the services and programs it needs (CHAINGATE_REQUIRE_SERVICES=1)', () => {
        throw new Error(`missing: ${missing.join('; ')}`)
      })
    })
    return
  }
  process.stderr.write(`SKIPPED suite "${name}": needs ${missing.join('; ')}\n`)
  describe.skip(name, body)
}

/** `describe` for a suite that runs programs from outside npm (see the guard above). */
export function describeWithPrograms(needs: readonly Program[], name: string, body: () => void): void {
  describeUnlessMissing(missingPrograms(needs), name, body)
}
