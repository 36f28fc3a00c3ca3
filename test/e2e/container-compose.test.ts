/**
 * deploy/compose.yaml up with podman-compose, as ./containers/compose-file.ts adapts it to a test machine (stand-in
 * images from Debian's packages, free ports): two chaingate replicas from the image the Dockerfile builds, on the
 * compose PostgreSQL and Redis, a key made in a replica, a call through the balancer, both replicas' HEALTHCHECK,
 * the balancer's JSON-RPC 503 when no replica is ready, Prometheus scraping both with the token and sending to
 * Alertmanager, then down. Grafana is not packaged by Debian: its provisioning files are checked as files.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { request } from 'undici'
import { parse } from 'yaml'
import { DEPLOY, shippedCompose, testCompose } from './containers/compose-file.ts'
import { podman, podmanProblems, run } from './containers/podman.ts'
import { chaingateImage, servicesImage } from './containers/stand-ins.ts'
import { freePort } from './helpers/haproxy.ts'
import { removeDirs, tempDir, waitFor } from './helpers/process.ts'
import { describeUnlessMissing } from '../support/programs.ts'

const CLI = ['node', '/app/node_modules/chaingate/bin/chaingate.mjs']
const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })

it('Grafana: the Prometheus data source and the dashboard provisioned where compose mounts them', () => {
  const grafana = shippedCompose().services.grafana
  const mount = (from: string) =>
    grafana.volumes.find((v: string) => v.startsWith(from))?.split(':')[1] as string | undefined
  expect(mount('./grafana/provisioning')).toBe('/etc/grafana/provisioning')
  const provisioning = join(DEPLOY, 'grafana', 'provisioning')
  const sources = parse(readFileSync(join(provisioning, 'datasources', 'prometheus.yaml'), 'utf8'))
  expect(sources.apiVersion).toBe(1)
  expect(sources.datasources).toEqual([
    expect.objectContaining({ type: 'prometheus', access: 'proxy', url: 'http://prometheus:9090', isDefault: true }),
  ])
  // The data source is compose's Prometheus service, on the port it listens on.
  expect(shippedCompose().services.prometheus.ports[0]).toMatch(/:9090$/)
  const boards = parse(readFileSync(join(provisioning, 'dashboards', 'chaingate.yaml'), 'utf8'))
  expect(boards.providers).toHaveLength(1)
  const dir = boards.providers[0].options.path
  expect(mount('./grafana/chaingate.json')).toBe(`${dir}/chaingate.json`)
  // The dashboard picks the default Prometheus data source through its `datasource` variable.
  const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'grafana', 'chaingate.json'), 'utf8'))
  expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: 'datasource', query: 'prometheus' }))
  expect(grafana.environment.GF_SECURITY_ADMIN_PASSWORD).toMatch(/^\$\{GRAFANA_ADMIN_PASSWORD:\?/)
  expect(grafana.ports).toEqual(['127.0.0.1:3000:3000'])
})

it("Prometheus sends its alerts to compose's Alertmanager", () => {
  const prometheus = parse(readFileSync(join(DEPLOY, 'prometheus', 'prometheus.yml'), 'utf8'))
  expect(prometheus.alerting.alertmanagers[0].static_configs[0].targets).toEqual(['alertmanager:9093'])
  const alertmanager = shippedCompose().services.alertmanager
  expect(alertmanager.volumes).toContain('./alertmanager/alertmanager.yml:/etc/alertmanager/alertmanager.yml:ro')
})

describeUnlessMissing(podmanProblems(['podman-compose']), 'deploy/compose.yaml up with podman-compose', () => {
  const dir = tempDir('chaingate-compose-')
  const project = `cgtest${randomBytes(3).toString('hex')}`
  const env = {
    POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    REDIS_PASSWORD: randomBytes(12).toString('hex'),
    CHAINGATE_OPERATIONS_TOKEN: randomBytes(16).toString('hex'),
    GRAFANA_ADMIN_PASSWORD: randomBytes(8).toString('hex'),
  }
  let composeFile: string
  let lb: string
  let prometheus: string
  let alertmanager: string
  const compose = (args: string[], timeoutMs = 300_000) =>
    run('podman-compose', ['-p', project, '-f', composeFile, ...args], { env, timeoutMs })
  const container = (service: string) => `${project}_${service}_1`
  const call = async (path: string) => {
    const res = await request(`${lb}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: CALL,
    }).catch(() => undefined)
    return res ? { status: res.statusCode, body: await res.body.text() } : { status: 0, body: '' }
  }

  beforeAll(async () => {
    const [chaingate, services] = [(await chaingateImage()).image, await servicesImage()]
    const tokenFile = join(dir, 'operations-token')
    writeFileSync(tokenFile, env.CHAINGATE_OPERATIONS_TOKEN, { mode: 0o644 })
    const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()])
    const adapted = testCompose({ chaingateImage: chaingate, servicesImage: services, tokenFile, freePorts: ports })
    composeFile = join(dir, 'compose.yaml')
    // JSON (YAML too): podman-compose reads YAML 1.1, where an unquoted yes is a boolean.
    writeFileSync(composeFile, JSON.stringify(adapted.file, null, 2))
    lb = `http://127.0.0.1:${adapted.published.balancer![8545]}`
    prometheus = `http://127.0.0.1:${adapted.published.prometheus![9090]}`
    alertmanager = `http://127.0.0.1:${adapted.published.alertmanager![9093]}`
    await compose(['up', '-d'])
  }, 30 * 60_000)

  afterAll(async () => {
    if (composeFile) {
      const logs = await compose(['logs'], 60_000).catch((e) => ({ stdout: String(e), stderr: '' }))
      if (process.env.CHAINGATE_TEST_COMPOSE_LOGS) process.stderr.write(logs.stdout + logs.stderr)
      await compose(['down', '-v', '-t', '5'], 180_000).catch(() => {})
    }
    removeDirs([dir])
  }, 240_000)

  it('both replicas start (migrations on the compose PostgreSQL, Redis with its password) and pass HEALTHCHECK', async () => {
    for (const name of ['chaingate-1', 'chaingate-2']) {
      await waitFor(
        async () => (await podman(['healthcheck', 'run', container(name)], { allowFail: true })).code === 0,
        180_000,
        `${name} healthy`,
        2000,
      )
    }
  }, 240_000)

  it('a key made in a replica serves a call through the balancer', async () => {
    // A CLI run opens its own PostgreSQL connection; on a loaded machine its connect can time out: tried again.
    const cli = async (args: string[]) => {
      const argv = ['exec', container('chaingate-1'), ...CLI, ...args, '--config', '/etc/chaingate/chaingate.yaml']
      for (let attempt = 1; ; attempt++) {
        const r = await podman(argv, { timeoutMs: 60_000, allowFail: true })
        if (r.code === 0) return r
        if (attempt === 3 || !r.stderr.includes('cannot reach PostgreSQL'))
          throw new Error(`${argv.join(' ')} exited ${r.code}:\n${r.stderr}`)
      }
    }
    await cli(['account', 'create', '--email', 'compose@example.com', '--plan', 'team'])
    const { key } = JSON.parse((await cli(['key', 'create', '--account', 'compose@example.com', '--json'])).stdout)
    let last = ''
    await waitFor(
      async () => {
        const r = await call(`/networks/mainnet/v3/${key}`)
        last = `${r.status} ${r.body}`
        return r.status === 200
      },
      60_000,
      'a call',
      1000,
    ).catch((err) => {
      throw new Error(`${err.message}; last answer: ${last}`)
    })
    expect(JSON.parse((await call(`/networks/mainnet/v3/${key}`)).body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: '0x1',
    })
  }, 120_000)

  it('Prometheus scrapes both replicas with the token and has Alertmanager', async () => {
    await waitFor(
      async () => {
        const res = await request(`${prometheus}/api/v1/targets`)
        const targets = (JSON.parse(await res.body.text()).data?.activeTargets ?? []) as { health: string }[]
        return targets.length === 2 && targets.every((t) => t.health === 'up')
      },
      90_000,
      'both replicas scraped',
      2000,
    )
    await waitFor(
      async () => {
        const res = await request(`${prometheus}/api/v1/alertmanagers`)
        return (JSON.parse(await res.body.text()).data?.activeAlertmanagers ?? []).length === 1
      },
      60_000,
      'Alertmanager discovered',
      2000,
    )
    expect((await request(`${alertmanager}/-/ready`)).statusCode).toBe(200)
  }, 180_000)

  it('no replica ready (both stopped): the balancer answers the JSON-RPC 503', async () => {
    await podman(['stop', '-t', '20', container('chaingate-1'), container('chaingate-2')], { timeoutMs: 90_000 })
    const res = await call('/networks/mainnet/v3/anykey')
    expect(res.status).toBe(503)
    expect(JSON.parse(res.body).error.code).toBe(-32603)
    // Both drained and exited 0 on SIGTERM.
    for (const name of ['chaingate-1', 'chaingate-2'])
      expect((await podman(['inspect', '--format', '{{.State.ExitCode}}', container(name)])).stdout.trim()).toBe('0')
  }, 120_000)
})
