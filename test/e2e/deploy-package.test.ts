/**
 * What the container image runs, without Docker: the package packed (`npm pack`), installed with production
 * dependencies only into an empty folder, anvil's binary removed as the Dockerfile does without WITH_ANVIL=1, and
 * started with the Dockerfile's own ENTRYPOINT script and ENV (paths under /app, /etc/chaingate and
 * /var/lib/chaingate mapped to temp folders) against PostgreSQL, Redis and a real anvil: start-up, a call, and a
 * SIGTERM drain. The Dockerfile is read here, so the image and this test cannot drift.
 */
import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { request } from 'undici'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { freePort } from './helpers/haproxy.ts'
import { ROOT, sleep, waitFor } from './helpers/process.ts'
import { createPgTestSchema, describeWithServices, redisUrl, type PgTestSchema } from '../support/services.ts'

const run = promisify(execFile)
/** gateway.operations.token, which deploy/config/chaingate.yaml requires (the probes below send it). */
const OPS_TOKEN = randomBytes(16).toString('hex')
const OPS = { headers: { authorization: `Bearer ${OPS_TOKEN}` } }
const NPM_ENV = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
}
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ')
const ENTRYPOINT: string[] = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]!)
const HEALTHCHECK: string[] = JSON.parse(/^HEALTHCHECK .* CMD (\[.*\])$/m.exec(dockerfile)![1]!)
/** The runtime stage's ENV (the last stage's ENV line). */
const ENV = Object.fromEntries(
  [...(/^ENV (.*)$/m.exec(dockerfile)?.[1] ?? '').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
)

it('the Dockerfile: multi-stage, non-root, tini, labels, HEALTHCHECK script, no anvil unless asked', () => {
  expect(dockerfile.match(/^FROM /gm)?.length).toBe(2)
  expect(dockerfile).toMatch(/^USER node$/m)
  expect(ENTRYPOINT.slice(0, 2)).toEqual(['/usr/bin/tini', '--'])
  expect(ENTRYPOINT[2]).toBe('/app/node_modules/chaingate/deploy/container/start.sh')
  expect(dockerfile).toMatch(/org\.opencontainers\.image\.version="\$\{VERSION\}"/)
  expect(dockerfile).toMatch(/org\.opencontainers\.image\.revision="\$\{COMMIT\}"/)
  expect(HEALTHCHECK).toEqual(['node', '/app/node_modules/chaingate/deploy/container/healthcheck.mjs'])
  expect(dockerfile).toContain('COPY --from=build /tmp/chaingate.tgz /src/package-lock.json /tmp/')
  expect(dockerfile.replace(/ +/g, ' ')).toContain(
    'RUN mkdir -p node_modules/chaingate && tar -xzf /tmp/chaingate.tgz -C node_modules/chaingate ' +
      '--strip-components=1 && cd node_modules/chaingate && cp /tmp/package-lock.json . && ' +
      'npm pkg delete scripts.prepare && npm ci --omit=dev --no-audit --no-fund && ' +
      'rm -rf node_modules/typescript && if',
  )
  expect(dockerfile).toContain('if [ "$WITH_ANVIL" != "1" ]; then rm -rf node_modules/@foundry-rs/anvil-*; fi')
  expect(ENV).toMatchObject({
    CHAINGATE_CONFIG: '/etc/chaingate/chaingate.yaml',
    CHAINGATE_DATA_DIR: '/var/lib/chaingate',
  })
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n')
  expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git', 'test']))
})

describeWithServices(['postgres', 'redis'], 'the packed package started as the image starts it', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'chaingate-image-'))
  /** An image path → where it is here. */
  const local = (p: string) =>
    p
      .replace(/^\/app\//, `${scratch}/app/`)
      .replace(/^\/etc\/chaingate/, `${scratch}/etc`)
      .replace(/^\/var\/lib\/chaingate/, `${scratch}/data`)
  let anvil: RunningAnvil
  let schema: PgTestSchema
  let env: NodeJS.ProcessEnv
  let port: number

  beforeAll(async () => {
    // dist/ is what `prepare` (tsc) builds from the current sources: the suite's global setup made it current
    // (test/global-setup.ts). --ignore-scripts: packing does not rebuild it under the other files' child processes,
    // which run it.
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {
      cwd: ROOT,
      env: NPM_ENV,
      timeout: 240_000,
      maxBuffer: 64 << 20,
    })
    const tarball = join(scratch, JSON.parse(stdout.slice(stdout.indexOf('[')))[0].filename)
    // The Dockerfile's install (here from the npm cache first, and without install scripts: PostgreSQL needs no
    // SQLite addon, and anvil's binary is removed anyway).
    const installed = join(scratch, 'app', 'node_modules', 'chaingate')
    mkdirSync(installed, { recursive: true })
    await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'])
    copyFileSync(join(ROOT, 'package-lock.json'), join(installed, 'package-lock.json'))
    await run('npm', ['pkg', 'delete', 'scripts.prepare'], { cwd: installed, env: NPM_ENV })
    await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--ignore-scripts'], {
      cwd: installed,
      env: NPM_ENV,
      timeout: 240_000,
      maxBuffer: 64 << 20,
    })
    await run('sh', ['-c', 'rm -rf node_modules/typescript node_modules/@foundry-rs/anvil-*'], { cwd: installed })
    mkdirSync(join(scratch, 'etc'))
    mkdirSync(join(scratch, 'data'))
    copyFileSync(join(ROOT, 'deploy', 'config', 'chaingate.yaml'), local(ENV.CHAINGATE_CONFIG!))
    ;[anvil, schema, port] = await Promise.all([
      startAnvil({ chainId: 1, port: 0, blockTimeSeconds: 0 }),
      createPgTestSchema('image'),
      freePort(),
    ])
    // The suite runs the CLI from src/ (CHAINGATE_RUN_SOURCES); the image runs the package's dist/.
    const { CHAINGATE_RUN_SOURCES: _, ...parent } = process.env
    env = {
      ...parent,
      ...Object.fromEntries(Object.entries(ENV).map(([k, v]) => [k, local(v)])),
      CHAINGATE_DATABASE_URL: schema.url,
      CHAINGATE_REDIS_URL: redisUrl,
      CHAINGATE_REDIS_KEY_PREFIX: `test-image-${randomBytes(4).toString('hex')}:`,
      CHAINGATE_UPSTREAM_URL: anvil.url,
      CHAINGATE_OPERATIONS_TOKEN: OPS_TOKEN,
    }
  }, 480_000)

  afterAll(async () => {
    await anvil?.stop()
    await schema?.drop()
    await rm(scratch, { recursive: true, force: true })
  }, 180_000)

  it('production dependencies only, anvil binary absent, and the entry script is the repository one', () => {
    const pkg = join(scratch, 'app', 'node_modules', 'chaingate', 'node_modules')
    expect(existsSync(join(pkg, 'fastify'))).toBe(true)
    expect(existsSync(join(pkg, 'vitest'))).toBe(false)
    expect(existsSync(join(pkg, 'typescript'))).toBe(false)
    expect(existsSync(join(pkg, '@foundry-rs', 'anvil-linux-amd64'))).toBe(false)
    // The lockfile pins every production dependency to the version the tests ran with.
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'))
    const wanted = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).dependencies)
    expect(wanted.length).toBeGreaterThan(5)
    for (const dep of wanted) {
      const installed = JSON.parse(readFileSync(join(pkg, dep, 'package.json'), 'utf8')).version
      expect(`${dep}@${installed}`).toBe(`${dep}@${lock.packages[`node_modules/${dep}`].version}`)
    }
    expect(readFileSync(local(ENTRYPOINT[2]!), 'utf8')).toBe(
      readFileSync(join(ROOT, 'deploy', 'container', 'start.sh'), 'utf8'),
    )
  })

  it('starts with the ENTRYPOINT and ENV, serves a call, and drains on SIGTERM', async () => {
    const base = `http://127.0.0.1:${port}`
    const cli = (args: string[]) =>
      run(
        'node',
        [join(scratch, 'app/node_modules/chaingate/bin/chaingate.mjs'), ...args, '--config', env.CHAINGATE_CONFIG!],
        {
          env,
          timeout: 60_000,
        },
      )
    const child = spawn('sh', [local(ENTRYPOINT[2]!), '--port', String(port)], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    try {
      const state = await waitFor(
        async () =>
          child.exitCode !== null ? 'exited' : (await request(`${base}/startupz`, OPS)).statusCode === 200 && 'started',
        60_000,
        'start-up',
        200,
      )
      expect(state, out).toBe('started')
      expect((await request(`${base}/readyz`, OPS)).statusCode).toBe(200)
      expect((await request(`${base}/readyz`)).statusCode).toBe(401)
      // The image's HEALTHCHECK command as Docker runs it (exec form), pointed at this port (the config's is 8545);
      // it reads the token from the config (`${CHAINGATE_OPERATIONS_TOKEN}`): with that variable empty, none is sent.
      const healthcheck = (extra: NodeJS.ProcessEnv = {}) =>
        run(HEALTHCHECK[0]!, HEALTHCHECK.slice(1).map(local), {
          env: { ...env, CHAINGATE_PROBE_PORT: String(port), ...extra },
        }).then(
          () => 0,
          (err: { code?: number }) => err.code,
        )
      expect(await healthcheck()).toBe(0)
      expect(await healthcheck({ CHAINGATE_OPERATIONS_TOKEN: '' })).toBe(1)
      await cli(['account', 'create', '--email', 'image@example.com', '--plan', 'team'])
      const key = JSON.parse(
        (await cli(['key', 'create', '--account', 'image@example.com', '--name', 'k', '--json'])).stdout,
      )
      const rpc = async () => {
        const res = await request(`${base}/networks/mainnet/v3/${key.key}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        })
        return { status: res.statusCode, body: await res.body.text() }
      }
      await waitFor(async () => (await rpc()).status === 200, 10_000, 'the new key served')
      expect(JSON.parse((await rpc()).body)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x1' })
      child.kill('SIGTERM')
      // Draining (gateway.drainDelayMs 2000 in deploy/config/chaingate.yaml): not ready, still alive and serving.
      await sleep(300)
      expect((await request(`${base}/readyz`, OPS)).statusCode).toBe(503)
      expect((await request(`${base}/livez`, OPS)).statusCode).toBe(200)
      expect((await rpc()).status).toBe(200)
      expect(await exited).toBe(0)
      expect(await healthcheck()).toBe(1)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  }, 120_000)
})
