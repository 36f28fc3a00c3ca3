/**
 * The image, built and run for real with podman (./containers/podman.ts says how podman is set up): the Dockerfile
 * as shipped, on a stand-in node:22-bookworm-slim (./containers/stand-ins.ts), run read-only with every capability
 * dropped against the test PostgreSQL and Redis (host network) with deploy/config/chaingate.yaml: a key made with
 * the CLI inside the container, a keyed call, the image's HEALTHCHECK as podman runs it (token from the environment,
 * and written in the config file), and `podman stop` draining to exit 0. The first run builds the base images
 * (about 5 minutes); later runs reuse them and podman's layer cache.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { request } from 'undici'
import { podman, podmanProblems } from './containers/podman.ts'
import { chaingateImage } from './containers/stand-ins.ts'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { freePort } from './helpers/haproxy.ts'
import { removeDirs, ROOT, tempDir, waitFor } from './helpers/process.ts'
import { describeUnlessMissing } from '../support/programs.ts'
import { createPgTestSchema, missingServices, redisUrl, type PgTestSchema } from '../support/services.ts'

const SHIPPED_CONFIG = readFileSync(join(ROOT, 'deploy', 'config', 'chaingate.yaml'), 'utf8')
const TOKEN = randomBytes(16).toString('hex')
const OPS = { headers: { authorization: `Bearer ${TOKEN}` } }
const CLI = ['node', '/app/node_modules/chaingate/bin/chaingate.mjs']
/** The CLI reads the config it is given (without it, the default networks: a key would have none of these). */
const CONFIG_IN_IMAGE = '/etc/chaingate/chaingate.yaml'
/** The config's reference to the token, replaced by a value written in the file. */
const TOKEN_REFERENCE = `"$\{CHAINGATE_OPERATIONS_TOKEN}"`

const missing = [...podmanProblems(), ...missingServices(['postgres', 'redis'])]

describeUnlessMissing(missing, "chaingate's image built and run with podman", () => {
  const dir = tempDir('chaingate-image-')
  const name = `chaingate-test-${randomBytes(4).toString('hex')}`
  let image: string
  let schema: PgTestSchema
  let node: FakeNode
  let port: number
  let base: string

  /** The shipped config, on a free port of the host network. */
  const config = (file: string, edit: (text: string) => string = (t) => t) => {
    const path = join(dir, file)
    writeFileSync(path, edit(SHIPPED_CONFIG.replace(/^ {2}port: 8545$/m, `  port: ${port}`)))
    return path
  }
  const rpc = async (key: string) => {
    const res = await request(`${base}/networks/mainnet/v3/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
    return { status: res.statusCode, body: await res.body.text() }
  }

  const cli = (args: string[]) =>
    podman(['exec', name, ...CLI, ...args, '--config', CONFIG_IN_IMAGE], { timeoutMs: 60_000 })

  beforeAll(async () => {
    const built = await chaingateImage()
    image = built.image
    process.stderr.write(`container-image: chaingate's image built in ${Math.round(built.buildMs / 1000)} s\n`)
    schema = await createPgTestSchema('image')
    node = await startFakeNode('0x1')
    port = await freePort()
    base = `http://127.0.0.1:${port}`
  }, 30 * 60_000)

  afterAll(async () => {
    await podman(['rm', '-f', '-v', name], { allowFail: true })
    await node?.close()
    await schema?.drop()
    removeDirs([dir])
  }, 120_000)

  it(
    'keeps the HEALTHCHECK, runs as node, and serves a keyed call read-only with no capabilities',
    async () => {
      const inspect = JSON.parse((await podman(['image', 'inspect', image])).stdout)[0]
      expect(inspect.Config.User).toBe('node')
      // podman keeps it beside Config, Docker in it.
      expect((inspect.Healthcheck ?? inspect.Config.Healthcheck).Test).toEqual([
        'CMD',
        'node',
        '/app/node_modules/chaingate/deploy/container/healthcheck.mjs',
      ])
      const literal = config('literal-token.yaml', (t) => t.replace(TOKEN_REFERENCE, `"${TOKEN}"`))
      const wrong = config('wrong-token.yaml', (t) => t.replace(TOKEN_REFERENCE, `"${'x'.repeat(32)}"`))
      const env = {
        CHAINGATE_DATABASE_URL: schema.url,
        CHAINGATE_REDIS_URL: redisUrl,
        CHAINGATE_REDIS_KEY_PREFIX: `test-image-${randomBytes(4).toString('hex')}:`,
        CHAINGATE_UPSTREAM_URL: node.url,
        CHAINGATE_TRUST_PROXY: '127.0.0.1',
        CHAINGATE_OPERATIONS_TOKEN: TOKEN,
      }
      await podman([
        'run',
        '--detach',
        '--name',
        name,
        '--network=host',
        '--read-only',
        '--cap-drop=ALL',
        '--tmpfs',
        '/tmp',
        ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
        '--volume',
        `${config('chaingate.yaml')}:/etc/chaingate/chaingate.yaml:ro`,
        '--volume',
        `${literal}:/etc/chaingate/literal-token.yaml:ro`,
        '--volume',
        `${wrong}:/etc/chaingate/wrong-token.yaml:ro`,
        image,
      ])
      const logs = async () => {
        const l = await podman(['logs', name], { allowFail: true })
        return l.stdout + l.stderr
      }
      await waitFor(
        async () => {
          const state = (await podman(['inspect', '--format', '{{.State.Status}}', name])).stdout.trim()
          if (state !== 'running') throw new Error(`container ${state}:\n${await logs()}`)
          return (await request(`${base}/startupz`, OPS).catch(() => ({ statusCode: 0 }))).statusCode === 200
        },
        120_000,
        'start-up in the container',
        500,
      )
      const caps = (await podman(['exec', name, 'grep', 'CapEff', '/proc/1/status'])).stdout
      expect(caps).toMatch(/CapEff:\s+0+\n/)
      const touch = await podman(['exec', name, 'touch', '/app/x'], { allowFail: true })
      expect(touch.stderr).toContain('Read-only file system')

      // The CLI in the container, as docs/deploy.md gives it.
      await cli(['account', 'create', '--email', 'image@example.com', '--plan', 'team'])
      const key = JSON.parse(
        (await cli(['key', 'create', '--account', 'image@example.com', '--name', 'k', '--json'])).stdout,
      )
      let last = ''
      await waitFor(
        async () => {
          const r = await rpc(key.key)
          last = `${r.status} ${r.body}`
          return r.status === 200
        },
        30_000,
        'the new key served',
        500,
      ).catch((err) => {
        throw new Error(`${err.message}; last answer: ${last}`)
      })
      expect(JSON.parse((await rpc(key.key)).body)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x1' })
    },
    30 * 60_000,
  )

  it('HEALTHCHECK with gateway.operations.token set: from the environment and written in the config', async () => {
    // As Docker runs it on its interval (no systemd here, so by hand): the container's own config, token from env.
    const check = await podman(['healthcheck', 'run', name], { allowFail: true })
    expect(check.code, check.stdout + check.stderr).toBe(0)
    expect((await podman(['inspect', '--format', '{{.State.Health.Status}}', name])).stdout.trim()).toBe('healthy')
    // The same command where the token is written in the file and no variable holds it.
    const command = ['node', '/app/node_modules/chaingate/deploy/container/healthcheck.mjs']
    const withConfig = (file: string) =>
      podman(
        [
          'exec',
          '--env',
          `CHAINGATE_CONFIG=/etc/chaingate/${file}`,
          '--env',
          'CHAINGATE_OPERATIONS_TOKEN=',
          name,
          ...command,
        ],
        {
          allowFail: true,
        },
      )
    const literal = await withConfig('literal-token.yaml')
    expect(literal.code, literal.stderr).toBe(0)
    const wrong = await withConfig('wrong-token.yaml')
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain('answered 401')
  }, 120_000)

  it('podman stop drains (not ready, calls still served) and exits 0', async () => {
    const key = JSON.parse(
      (await cli(['key', 'create', '--account', 'image@example.com', '--name', 'k2', '--json'])).stdout,
    ).key
    await waitFor(async () => (await rpc(key)).status === 200, 30_000, 'the key served')
    const stopping = podman(['stop', '--time', '30', name], { timeoutMs: 60_000 })
    // gateway.drainDelayMs 2000 in deploy/config/chaingate.yaml: /readyz 503 while calls are still answered.
    await waitFor(async () => (await request(`${base}/readyz`, OPS)).statusCode === 503, 5_000, 'draining', 100)
    expect((await rpc(key)).status).toBe(200)
    const started = Date.now()
    await stopping
    expect(Date.now() - started).toBeLessThan(25_000)
    expect((await podman(['inspect', '--format', '{{.State.ExitCode}}', name])).stdout.trim()).toBe('0')
  }, 120_000)
})
