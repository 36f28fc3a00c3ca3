/**
 * deploy/compose.yaml and deploy/kubernetes/ against what chaingate reads: compose has the services, mounts and
 * environment docs/deploy.md names; the kustomization renders with `kubectl kustomize`, every object validates
 * against the Kubernetes API schemas (kubernetes-models, @kubernetes-models/prometheus-operator), and probes, ports,
 * environment names, mounts and the grace period match the config chaingate parses.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse, parseAllDocuments } from 'yaml'
import { parseConfig } from '../../src/config/load.ts'
import { expandEnv } from '../../src/config/env.ts'
import { ROOT } from './helpers/process.ts'
import { describeWithPrograms, programPath } from '../support/programs.ts'

const DEPLOY = join(ROOT, 'deploy')
const ALERTS = join(DEPLOY, 'prometheus', 'alerts.yaml')
const DASHBOARD = join(DEPLOY, 'grafana', 'chaingate.json')
type Model = new (o: any) => { validate(): void }
/** A schema model class (the packages' subpath modules have no type declarations TypeScript resolves here). */
const model = async (module: string, name: string): Promise<Model> => (await import(module))[name]
const MODELS: Record<string, Model> = {
  Deployment: await model('kubernetes-models/apps/v1/Deployment', 'Deployment'),
  Service: await model('kubernetes-models/v1/Service', 'Service'),
  ConfigMap: await model('kubernetes-models/v1/ConfigMap', 'ConfigMap'),
  Secret: await model('kubernetes-models/v1/Secret', 'Secret'),
  PodDisruptionBudget: await model('kubernetes-models/policy/v1/PodDisruptionBudget', 'PodDisruptionBudget'),
  PodMonitor: await model('@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor', 'PodMonitor'),
  NetworkPolicy: await model('kubernetes-models/networking.k8s.io/v1/NetworkPolicy', 'NetworkPolicy'),
}
/** Environment variables chaingate itself (src/config/schema.ts) and its entry script (start.sh) read. */
const READ_BY_CHAINGATE = ['CHAINGATE_DATABASE_URL', 'CHAINGATE_REDIS_URL', 'CHAINGATE_CONFIG', 'CHAINGATE_DATA_DIR']
const startScript = readFileSync(join(DEPLOY, 'container', 'start.sh'), 'utf8')
/** `${NAME}` references a config file makes, and whether each has a fallback. */
const references = (text: string) =>
  [...text.replace(/^\s*#.*$/gm, '').matchAll(/\$\{(\w+)(:-[^}]*)?\}/g)].map((m) => ({
    name: m[1]!,
    fallback: m[2] !== undefined,
  }))
/** The config as chaingate parses it, with `env` for its references. */
const load = (text: string, env: Record<string, string>) => parseConfig(expandEnv(parse(text), env).value as object)
/**
 * Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?error}` (unset or empty: the error) in a
 * compose file's text (https://docs.docker.com/reference/compose-file/interpolation/).
 */
const interpolate = (text: string, env: Record<string, string>) =>
  text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
      if (env[name]) return env[name]
      if (op === '?') throw new Error(`${name}: ${arg}`)
      return op === '-' ? arg! : ''
    })

describe('deploy/compose.yaml', () => {
  const composeText = readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8')
  const compose = parse(composeText)
  const SECRETS = ['POSTGRES_PASSWORD', 'REDIS_PASSWORD', 'CHAINGATE_OPERATIONS_TOKEN', 'GRAFANA_ADMIN_PASSWORD']

  it('secrets are required, with no default: PostgreSQL, Redis and Grafana passwords, the operations token', () => {
    const env = {
      POSTGRES_PASSWORD: 'pg-secret-1',
      REDIS_PASSWORD: 'redis-secret-2',
      CHAINGATE_OPERATIONS_TOKEN: 't'.repeat(32),
      GRAFANA_ADMIN_PASSWORD: 'grafana-secret-3',
    }
    for (const name of SECRETS) {
      const without: Record<string, string> = { ...env }
      delete without[name]
      expect(() => interpolate(composeText, without), `${name} unset`).toThrow(name)
      expect(() => interpolate(composeText, { ...env, [name]: '' }), `${name} empty`).toThrow(name)
    }
    // Every reference to a password or token is required (`:?`), none has a default.
    const refs = [...composeText.matchAll(/\$\{(\w+)(:[-?])?/g)].filter((m) => /PASSWORD|TOKEN/.test(m[1]!))
    expect(refs.length).toBeGreaterThan(5)
    for (const m of refs) expect(m[2], m[0]).toBe(':?')
    const s = parse(interpolate(composeText, env)).services
    // PostgreSQL's password is the one chaingate's URL carries.
    expect(s.postgres.environment.POSTGRES_PASSWORD).toBe(env.POSTGRES_PASSWORD)
    // Redis requires a password (its healthcheck sends it), and chaingate's Redis URL carries it.
    const args: string[] = s.redis.command
    expect(args[args.indexOf('--requirepass') + 1]).toBe(env.REDIS_PASSWORD)
    expect(s.redis.environment.REDISCLI_AUTH).toBe(env.REDIS_PASSWORD)
    for (const name of ['chaingate-1', 'chaingate-2']) {
      const e = s[name].environment
      expect(decodeURIComponent(new URL(e.CHAINGATE_REDIS_URL).password)).toBe(env.REDIS_PASSWORD)
      expect(decodeURIComponent(new URL(e.CHAINGATE_DATABASE_URL).password)).toBe(env.POSTGRES_PASSWORD)
      expect(e.CHAINGATE_OPERATIONS_TOKEN).toBe(env.CHAINGATE_OPERATIONS_TOKEN)
    }
    // The replicas' config requires the token; the balancer's checks and Prometheus' scrapes send the same one.
    const config = load(readFileSync(join(DEPLOY, 'config', 'chaingate.yaml'), 'utf8'), {
      CHAINGATE_UPSTREAM_URL: 'http://node:8545',
      CHAINGATE_OPERATIONS_TOKEN: env.CHAINGATE_OPERATIONS_TOKEN,
    })
    expect(config.gateway.operations.token).toBe(env.CHAINGATE_OPERATIONS_TOKEN)
    expect(s.balancer.environment.CHAINGATE_OPERATIONS_TOKEN).toBe(env.CHAINGATE_OPERATIONS_TOKEN)
    expect(compose.secrets['operations-token']).toEqual({ environment: 'CHAINGATE_OPERATIONS_TOKEN' })
    const mounted = s.prometheus.secrets.find((x: any) => x.source === 'operations-token').target
    const scrape = parse(readFileSync(join(DEPLOY, 'prometheus', 'prometheus.yml'), 'utf8')).scrape_configs[0]
    const configDir = s.prometheus.volumes.find((v: string) => v.includes('prometheus.yml')).split(':')[1]
    expect(join(dirname(configDir), scrape.authorization.credentials_file)).toBe(mounted)
    // Prometheus, Alertmanager (no authentication of their own) and Grafana answer on this machine only; anvil,
    // PostgreSQL, Redis and the replicas are not published at all.
    expect(s.prometheus.ports).toEqual(['127.0.0.1:9090:9090'])
    expect(s.alertmanager.ports).toEqual(['127.0.0.1:9093:9093'])
    expect(s.grafana.ports).toEqual(['127.0.0.1:3000:3000'])
    expect(s.grafana.environment.GF_SECURITY_ADMIN_PASSWORD).toBe(env.GRAFANA_ADMIN_PASSWORD)
    for (const [name, svc] of Object.entries<any>(s))
      if (!['balancer', 'prometheus', 'alertmanager', 'grafana'].includes(name)) expect(svc.ports, name).toBeUndefined()
    // Webhook targets restricted (docs/alerts.md, "SSRF").
    expect(config.alerts.allowedHosts).not.toBeNull()
  })

  it('PostgreSQL, Redis (append-only), two replicas, the balancer and Prometheus, with files that exist', () => {
    const s = compose.services
    expect(Object.keys(s)).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'chaingate-1', 'chaingate-2', 'balancer', 'prometheus']),
    )
    expect(s.redis.command.join(' ')).toContain('--appendonly yes')
    for (const name of ['chaingate-1', 'chaingate-2']) {
      expect(s[name].volumes).toContain('./config/chaingate.yaml:/etc/chaingate/chaingate.yaml:ro')
      expect(Object.keys(s[name].environment)).toEqual(
        expect.arrayContaining(['CHAINGATE_DATABASE_URL', 'CHAINGATE_REDIS_URL']),
      )
      // Every reference without a fallback in the config is set.
      const config = readFileSync(join(DEPLOY, 'config', 'chaingate.yaml'), 'utf8')
      for (const r of references(config).filter((r) => !r.fallback)) expect(s[name].environment).toHaveProperty(r.name)
    }
    // The folder: haproxy.cfg and its errorfile beside it (`default-path config`).
    expect(s.balancer.volumes).toContain('./haproxy:/usr/local/etc/haproxy:ro')
    expect(Object.keys(s.balancer.environment).sort()).toEqual(
      [
        ...new Set(
          [
            ...readFileSync(join(DEPLOY, 'haproxy', 'haproxy.cfg'), 'utf8')
              .replace(/^\s*#.*$/gm, '')
              .matchAll(/\$\{(\w+)\}/g),
          ].map((m) => m[1]),
        ),
      ].sort(),
    )
    for (const svc of Object.values<any>(s))
      for (const v of svc.volumes ?? [])
        if (v.startsWith('./')) expect(existsSync(join(DEPLOY, v.split(':')[0])), v).toBe(true)
    // The config parses as chaingate reads it, on the port the balancer targets.
    const config = load(readFileSync(join(DEPLOY, 'config', 'chaingate.yaml'), 'utf8'), {
      CHAINGATE_UPSTREAM_URL: 'http://node:8545',
      CHAINGATE_OPERATIONS_TOKEN: 'a-token-of-16-chars-or-more',
    })
    expect(s.balancer.environment.CHAINGATE_REPLICA_1).toBe(`chaingate-1:${config.gateway.port}`)
  })
})

describeWithPrograms(['kubectl'], 'deploy/kubernetes (kubectl kustomize)', () => {
  const render = (dir: string) => {
    const r = spawnSync(programPath('kubectl'), ['kustomize', join(DEPLOY, 'kubernetes', dir)], { encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    return parseAllDocuments(r.stdout).map((d) => d.toJS())
  }

  it.each(['base', 'overlays/example'])('%s: every object validates against the API schema', (dir) => {
    const objects = render(dir)
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'PodMonitor',
      'Secret',
      'Service',
    ])
    for (const o of objects) {
      // The Secret's base64 `data` checked as the API server would store it: decoded into stringData.
      const v =
        o.kind === 'Secret'
          ? {
              ...o,
              data: undefined,
              stringData: Object.fromEntries(
                Object.entries<string>(o.data).map(([k, x]) => [k, Buffer.from(x, 'base64').toString()]),
              ),
            }
          : o
      expect(() => new MODELS[o.kind]!(v).validate(), o.kind).not.toThrow()
    }
    // A deliberately broken object is refused: the validation is real.
    const deployment = objects.find((o) => o.kind === 'Deployment')
    expect(() =>
      new MODELS.Deployment!({ ...deployment, spec: { ...deployment.spec, replicas: 'two' } }).validate(),
    ).toThrow()
  })

  it('probes, ports, environment, mounts and grace period match what chaingate reads', () => {
    const objects = render('overlays/example')
    const byKind = (k: string) => objects.find((o) => o.kind === k)
    const deployment = byKind('Deployment')
    const configMap = byKind('ConfigMap')
    const secret = byKind('Secret')
    const pod = deployment.spec.template.spec
    const c = pod.containers[0]
    // Generated names with a content hash, referenced by the pods: a change rolls them.
    expect(configMap.metadata.name).toMatch(/^chaingate-config-[a-z0-9]{10}$/)
    expect(secret.metadata.name).toMatch(/^chaingate-credentials-[a-z0-9]{10}$/)
    expect(pod.volumes.find((v: any) => v.name === 'config').configMap.name).toBe(configMap.metadata.name)
    expect(c.envFrom[0].secretRef.name).toBe(secret.metadata.name)
    expect(deployment.spec.replicas).toBe(3)

    const env = Object.fromEntries(c.env.map((e: any) => [e.name, e.value]))
    const secretEnv = Object.fromEntries(
      Object.entries<string>(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
    )
    const configText: string = configMap.data['chaingate.yaml']
    const config = load(configText, { ...env, ...secretEnv })
    // Environment: only names chaingate, its entry script or its config read; every reference without a fallback set.
    const referenced = references(configText).map((r) => r.name)
    for (const name of [...Object.keys(env), ...Object.keys(secretEnv)])
      expect([...READ_BY_CHAINGATE, ...referenced], name).toContain(name)
    for (const r of references(configText).filter((r) => !r.fallback)) expect(secretEnv).toHaveProperty(r.name)
    for (const name of ['CHAINGATE_CONFIG', 'CHAINGATE_DATA_DIR']) expect(startScript).toContain(`\${${name}:-`)
    // Mounts: the config file where CHAINGATE_CONFIG points, a writable data dir, a read-only root otherwise.
    const mount = (name: string) => c.volumeMounts.find((m: any) => m.name === name).mountPath
    expect(env.CHAINGATE_CONFIG).toBe(`${mount('config')}/chaingate.yaml`)
    expect(env.CHAINGATE_DATA_DIR).toBe(mount('data'))
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false })
    expect(pod.securityContext.runAsNonRoot).toBe(true)
    // Ports and probes: the gateway port and the operations listener the config opens.
    const port = (name: string) => c.ports.find((p: any) => p.name === name).containerPort
    expect(port('http')).toBe(config.gateway.port)
    expect(port('ops')).toBe(config.gateway.operations.listen?.port)
    expect(c.startupProbe.httpGet).toEqual({ path: '/startupz', port: 'ops' })
    expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'ops' })
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'ops' })
    expect(byKind('Service').spec.ports.map((p: any) => p.targetPort)).toEqual(['http'])
    expect(byKind('PodMonitor').spec.podMetricsEndpoints).toEqual([
      { port: 'ops', path: '/metrics', interval: '15s', authorization: expect.anything() },
    ])
    // The scrape job the alert rules and the dashboard select (job="…"): the PodMonitor's jobLabel names a pod label
    // holding it, as compose's prometheus.yml names its job (without jobLabel it would be <namespace>/chaingate).
    const jobs = [ALERTS, DASHBOARD].flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/job=\\?"([^"\\]+)/g)])
    expect(jobs.length).toBeGreaterThan(0)
    const composeJob = parse(readFileSync(join(DEPLOY, 'prometheus', 'prometheus.yml'), 'utf8')).scrape_configs[0]
      .job_name
    const podJob = deployment.spec.template.metadata.labels[byKind('PodMonitor').spec.jobLabel]
    for (const [, job] of jobs) expect([composeJob, podJob]).toEqual([job, job])
    // The operations listener needs the token from the Secret for /metrics and /healthz (the PodMonitor sends it);
    // the kubelet's probes, which cannot send it, answer without (gateway.operations.openProbes).
    expect(config.gateway.operations.token).toBe(secretEnv.CHAINGATE_OPERATIONS_TOKEN)
    expect(config.gateway.operations.openProbes).toBe(true)
    const auth = byKind('PodMonitor').spec.podMetricsEndpoints[0].authorization
    expect(auth).toEqual({
      type: 'Bearer',
      credentials: { name: secret.metadata.name, key: 'CHAINGATE_OPERATIONS_TOKEN' },
    })
    // trustProxy is set in the Secret, no fallback to a whole private range.
    expect(references(configText)).toContainEqual({ name: 'CHAINGATE_TRUST_PROXY', fallback: false })
    // The NetworkPolicy covers the gateway pods: the gateway port from one namespace, the operations port from
    // another, nothing else.
    const policy = byKind('NetworkPolicy')
    expect(policy.spec.podSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels)
    expect(policy.spec.policyTypes).toEqual(['Ingress'])
    expect(policy.spec.ingress.map((r: any) => r.ports)).toEqual([[{ port: 'http' }], [{ port: 'ops' }]])
    for (const rule of policy.spec.ingress)
      expect(rule.from).toEqual([
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': expect.any(String) } } },
      ])
    expect(config.alerts.allowedHosts).not.toBeNull()
    // The grace period covers the drain: readiness off for drainDelayMs, then drainTimeoutMs, then the last flush.
    const { drainDelayMs, drainTimeoutMs } = config.gateway
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(drainDelayMs + drainTimeoutMs + 5000)
    expect(c.resources.requests).toBeDefined()
  })
})
