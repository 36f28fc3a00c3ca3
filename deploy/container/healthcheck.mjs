#!/usr/bin/env node
// The image's HEALTHCHECK (Dockerfile): GET /livez where chaingate serves it, with the token it requires. Both come
// from the config chaingate started with (CHAINGATE_CONFIG), `${VAR}` references expanded as chaingate expands them,
// so a token written in the file, one from `${VAR}` and a moved operations listener all work; CHAINGATE_PROBE_PORT
// overrides the port (a `--port` given to the container's command). Exit 0: alive; 1: not (Docker's contract).
// Only the keys it needs are read, without the full schema: validating the whole config took seconds on a loaded
// machine, past the check's timeout. The defaults are the schema's (src/config/schema.ts: gateway.host, .port).
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { expandEnv } from '../../dist/config/env.js'

const WILDCARD = new Set(['0.0.0.0', '::', '[::]'])

function target() {
  const file = process.env.CHAINGATE_CONFIG || '/etc/chaingate/chaingate.yaml'
  let gateway = {}
  try {
    const text = readFileSync(file, 'utf8')
    gateway = expandEnv(file.endsWith('.json') ? JSON.parse(text) : parse(text)).value?.gateway ?? {}
  } catch (err) {
    process.stderr.write(`healthcheck: cannot read ${file} (${err.code ?? err.message}); trying the defaults\n`)
  }
  const ops = gateway.operations ?? {}
  const at = ops.listen ? { host: '127.0.0.1', ...ops.listen } : gateway
  return {
    host: at.host || '127.0.0.1',
    port: at.port ?? 8545,
    token: ops.token || process.env.CHAINGATE_OPERATIONS_TOKEN || null,
  }
}

const { host, port, token } = target()
const probeHost = WILDCARD.has(host) ? '127.0.0.1' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
const url = `http://${probeHost}:${process.env.CHAINGATE_PROBE_PORT || port}/livez`
try {
  const res = await fetch(url, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(4000),
  })
  if (!res.ok) process.stderr.write(`healthcheck: ${url} answered ${res.status}\n`)
  process.exit(res.ok ? 0 : 1)
} catch (err) {
  process.stderr.write(`healthcheck: ${url}: ${err.cause?.code ?? err.message}\n`)
  process.exit(1)
}
