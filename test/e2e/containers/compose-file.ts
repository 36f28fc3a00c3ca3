/**
 * deploy/compose.yaml as the container test runs it with podman-compose: the shipped file, with only what a test
 * machine must change (the returned file, written to a temp folder; nothing in deploy/ is touched):
 * - images: stand-ins built from Debian's packages (./stand-ins.ts), each with the entrypoint its real image has;
 * - published ports: free ports on 127.0.0.1 instead of 8545, 9090, 9093, 3000 (other tests may hold those);
 * - relative paths: absolute, into deploy/;
 * - the operations-token secret: from a file, as deploy/compose.podman.yaml gives it (podman-compose 1.0.3, Debian
 *   12's, cannot read a secret from the environment);
 * - grafana left out: Debian does not package it (its provisioning files are checked as files instead).
 * Everything else (read-only roots, tmpfs, environment, mounts, dependencies, restart policies) is as shipped.
 */
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parse } from 'yaml'
import { ROOT } from '../helpers/process.ts'

export const DEPLOY = join(ROOT, 'deploy')

/** What each service's real image runs, for the stand-in image that has none of those entrypoints. */
const ENTRYPOINTS: Record<string, Record<string, unknown>> = {
  postgres: { entrypoint: ['/usr/local/bin/postgres-entrypoint.sh'], user: 'postgres' },
  redis: {},
  anvil: {},
  balancer: { command: ['haproxy', '-W', '-db', '-f', '/usr/local/etc/haproxy/haproxy.cfg'], user: 'haproxy' },
  prometheus: {
    entrypoint: ['/usr/bin/prometheus'],
    command: ['--config.file=/etc/prometheus/prometheus.yml', '--storage.tsdb.path=/prometheus'],
  },
  alertmanager: {
    entrypoint: ['/usr/bin/prometheus-alertmanager'],
    command: ['--config.file=/etc/alertmanager/alertmanager.yml', '--storage.path=/alertmanager'],
  },
}
const CHAINGATE = ['chaingate-1', 'chaingate-2']
const LEFT_OUT = ['grafana']

export interface TestCompose {
  file: Record<string, any>
  /** Published container port → the host port it is published on here. */
  published: Record<string, Record<number, number>>
}

export function shippedCompose(): Record<string, any> {
  return parse(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true })
}

export function testCompose(opts: {
  chaingateImage: string
  servicesImage: string
  tokenFile: string
  freePorts: number[]
}): TestCompose {
  const file = shippedCompose()
  const podmanOverride = parse(readFileSync(join(DEPLOY, 'compose.podman.yaml'), 'utf8'))
  const published: TestCompose['published'] = {}
  const ports = [...opts.freePorts]
  for (const name of LEFT_OUT) delete file.services[name]
  for (const [name, svc] of Object.entries<any>(file.services)) {
    if (CHAINGATE.includes(name)) {
      svc.image = opts.chaingateImage
      delete svc.build
    } else {
      const standIn = ENTRYPOINTS[name]
      if (!standIn) throw new Error(`compose service ${name} has no stand-in (test/e2e/containers/compose-file.ts)`)
      Object.assign(svc, { image: opts.servicesImage }, standIn)
    }
    svc.volumes = (svc.volumes ?? []).map((v: string) => (v.startsWith('.') ? resolve(DEPLOY, v) : v))
    if (svc.ports) {
      published[name] = {}
      svc.ports = svc.ports.map((p: string) => {
        const container = Number(p.split(':').at(-1))
        const host = ports.shift()
        if (host === undefined) throw new Error('not enough free ports')
        published[name]![container] = host
        return `127.0.0.1:${host}:${container}`
      })
    }
  }
  for (const name of Object.keys(podmanOverride.secrets ?? {})) file.secrets[name] = { file: opts.tokenFile }
  return { file, published }
}
