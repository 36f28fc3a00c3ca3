/**
 * podman for the container tests, configured here rather than by the machine's /etc/containers, so a fresh CI
 * machine runs it the same way (docs/deploy.md, "Docker and podman: what the tests run"):
 * - runtime runc: crun refuses these machines' hybrid cgroups (v1 controllers plus a v2 mount);
 * - cgroupfs and a file events log: no systemd here;
 * - default ulimits the machine allows: podman's own (nofile 1048576) cannot be set without CAP_SYS_RESOURCE, and
 *   podman caps its own processes at nproc 32768, so a container asking for more fails to start;
 * - its own image store (overlay) under CHAINGATE_TEST_PODMAN_DIR (default /var/tmp/chaingate-test-podman): the
 *   stand-in base images are cached there by tag, and never shadow the machine's own `node:22-bookworm-slim`.
 * Rootful only (CI runs as root); elsewhere the suites are skipped with the reason. podman's own database in the
 * store (libpod/bolt_state.db) pins the store's paths: keep CHAINGATE_TEST_PODMAN_DIR fixed, or start a new one.
 */
import { type ExecFileOptions, execFile, execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { missingPrograms, type Program } from '../../support/programs.ts'

export const STATE_DIR = process.env.CHAINGATE_TEST_PODMAN_DIR || '/var/tmp/chaingate-test-podman'
/** Images the tests build are named under this prefix (their store is the tests' own, see above). */
export const TEST_IMAGES = 'localhost/chaingate-test'

/** A hard limit of this process (/proc/self/limits), to give containers no more than the machine allows. */
function hardLimit(name: string, fallback: number): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(name))
    const hard = line?.slice(26).trim().split(/\s+/)[1]
    return hard === undefined || hard === 'unlimited' ? fallback : Number(hard)
  } catch {
    return fallback
  }
}

let configured: NodeJS.ProcessEnv | undefined
/** The environment every podman call of the tests gets: CONTAINERS_CONF and CONTAINERS_STORAGE_CONF in a temp dir. */
export function podmanEnv(): NodeJS.ProcessEnv {
  if (configured) return configured
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-podman-conf-'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  const nofile = Math.min(hardLimit('Max open files', 20_000), 1_048_576)
  const nproc = Math.min(hardLimit('Max processes', 32_768), 32_768)
  const containers = join(dir, 'containers.conf')
  writeFileSync(
    containers,
    [
      '[containers]',
      `default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]`,
      '[engine]',
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      '',
    ].join('\n'),
  )
  const storage = join(dir, 'storage.conf')
  writeFileSync(
    storage,
    [
      '[storage]',
      'driver = "overlay"',
      `graphroot = "${join(STATE_DIR, 'storage')}"`,
      `runroot = "/run/chaingate-test-podman"`,
      '',
    ].join('\n'),
  )
  configured = { ...process.env, CONTAINERS_CONF: containers, CONTAINERS_STORAGE_CONF: storage }
  return configured
}

/** Why these suites cannot run here (for the skip line), or an empty list. */
export function podmanProblems(needs: readonly Program[] = []): string[] {
  const missing = missingPrograms(['podman', 'runc', 'mmdebstrap', ...needs])
  if (missing.length > 0) return missing
  if (process.getuid?.() !== 0) return ['rootful podman (these tests configure podman as root; run them as root)']
  try {
    execFileSync('podman', ['info', '--format', '{{.Host.OCIRuntime.Name}}'], { env: podmanEnv(), stdio: 'pipe' })
    return []
  } catch (err) {
    const why = String((err as { stderr?: Buffer }).stderr ?? err).trim()
    return [`a working podman (\`podman info\` failed: ${why.split('\n').at(-1)})`]
  }
}

export interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Runs a program with the tests' podman environment; rejects on a non-zero exit unless `allowFail`. */
export function run(
  file: string,
  args: string[],
  opts: { allowFail?: boolean; timeoutMs?: number; input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  const options: ExecFileOptions = {
    env: { ...podmanEnv(), ...opts.env },
    timeout: opts.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  }
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, options, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      const result = { code, stdout: String(stdout), stderr: String(stderr) }
      if (code !== 0 && !opts.allowFail)
        reject(new Error(`${file} ${args.join(' ')} exited ${code}:\n${result.stderr.slice(-4000)}`))
      else resolve(result)
    })
    if (opts.input !== undefined) child.stdin!.end(opts.input)
  })
}

export const podman = (args: string[], opts: Parameters<typeof run>[2] = {}) => run('podman', args, opts)

/** A tag naming what an image is built from, so a change to its inputs builds it again and nothing else does. */
export function contentTag(...parts: (string | Buffer)[]): string {
  const hash = createHash('sha256')
  for (const p of parts) hash.update(p)
  return hash.digest('hex').slice(0, 12)
}

/**
 * `fn` while holding a lock shared by the test files (a folder: mkdir is atomic), so two files building the same
 * images at once build them once: the second finds them built. A lock older than 30 minutes is a dead run's.
 */
export async function withBuildLock<T>(fn: () => Promise<T>): Promise<T> {
  const lock = join(STATE_DIR, 'build.lock')
  mkdirSync(STATE_DIR, { recursive: true })
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 30 * 60_000) rmSync(lock, { recursive: true, force: true })
      } catch {}
      await new Promise((r) => setTimeout(r, 1000))
    }
  }
  try {
    return await fn()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/** Builds `image` with `build` unless the store already has it (the cache a second run uses). */
export async function ensureImage(image: string, build: () => Promise<void>): Promise<string> {
  const exists = await podman(['image', 'exists', image], { allowFail: true })
  if (exists.code !== 0) await build()
  return image
}

/** A scratch folder under the state dir (build contexts, downloads). */
export function scratchDir(name: string): string {
  const dir = join(STATE_DIR, 'work', name)
  mkdirSync(dir, { recursive: true })
  return dir
}
