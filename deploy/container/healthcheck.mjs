#!/usr/bin/env node
// The image's HEALTHCHECK (Dockerfile): GET /livez where chaingate serves it, with the token it requires. Both come
// from the config chaingate started with (CHAINGATE_CONFIG), read by chaingate's own loader, so a token written in
// the file, one from `${VAR}` and a moved operations listener all work; CHAINGATE_PROBE_PORT overrides the port (a
// `--port` given to the container's command). Exit 0: alive; 1: not (Docker's HEALTHCHECK contract).
// When the config no longer loads (edited since the start), CHAINGATE_OPERATIONS_TOKEN and port 8545 are tried.
import { loadConfig } from '../../dist/config/load.js'

const WILDCARD = new Set(['0.0.0.0', '::', '[::]', ''])

function target() {
  const file = process.env.CHAINGATE_CONFIG || '/etc/chaingate/chaingate.yaml'
  try {
    const { gateway } = loadConfig(file)
    const at = gateway.operations.listen ?? gateway
    return { host: at.host, port: at.port, token: gateway.operations.token }
  } catch (err) {
    process.stderr.write(`healthcheck: ${String(err.message).split('\n')[0]}; trying the defaults\n`)
    return { host: '127.0.0.1', port: 8545, token: process.env.CHAINGATE_OPERATIONS_TOKEN || null }
  }
}

const { host, port, token } = target()
const probeHost = WILDCARD.has(host) ? '127.0.0.1' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
const url = `http://${probeHost}:${process.env.CHAINGATE_PROBE_PORT || port}/livez`
try {
  const res = await fetch(url, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(2500),
  })
  if (!res.ok) process.stderr.write(`healthcheck: ${url} answered ${res.status}\n`)
  process.exit(res.ok ? 0 : 1)
} catch (err) {
  process.stderr.write(`healthcheck: ${url}: ${err.cause?.code ?? err.message}\n`)
  process.exit(1)
}
