/**
 * Traces (docs/deploy.md, "Traces"): the small facade the pipeline and the upstream pool call. Off by default and
 * free when off: TRACING_OFF makes no span, the per-call path only tests `tracing.on` or an undefined span, and the
 * OpenTelemetry SDK (tracing-sdk.ts) is imported only when tracing is switched on, by the config's `tracing`
 * section or the standard `OTEL_TRACES_EXPORTER=otlp` (https://opentelemetry.io/docs/specs/otel/configuration/).
 * Spans are passed explicitly (no async context): nothing here knows the gateway or the nodes.
 */
import { ConfigError } from '../config/load.ts'
import type { Tracing, TracingSettings } from './tracing-types.ts'

export type { Tracing, TraceSpan, TraceValue, TracingSettings } from './tracing-types.ts'

export const TRACING_OFF: Tracing = {
  on: false,
  propagate: false,
  start: () => undefined,
  shutdown: () => Promise.resolve(),
}

/** The config's `tracing` section (src/config/observability-schema.ts). */
export interface TracingConfig {
  enabled: boolean
  endpoint: string | null
  protocol: 'http/protobuf' | 'http/json'
  sampleRatio: number
  propagateToUpstreams: boolean
  serviceName: string
}

const DEFAULT_ENDPOINT = 'http://localhost:4318'
/**
 * Span limits unless OTEL_(SPAN_)ATTRIBUTE_VALUE_LENGTH_LIMIT / _COUNT_LIMIT say otherwise: the SDK's own defaults
 * keep values of any length, so one attribute a client fills could hold megabytes in the export queue.
 */
const DEFAULT_VALUE_LENGTH = 1024
const DEFAULT_ATTRIBUTE_COUNT = 32

/** The first of `names` set to a positive whole number, else `fallback`. */
function limitOf(env: NodeJS.ProcessEnv, names: string[], fallback: number): number {
  for (const name of names) {
    const n = Number(env[name])
    if (env[name]?.trim() && Number.isInteger(n) && n > 0) return n
  }
  return fallback
}

/**
 * OTEL_EXPORTER_OTLP(_TRACES)_HEADERS: comma-separated `key=value` pairs, percent-encoded
 * (https://opentelemetry.io/docs/specs/otel/protocol/exporter/). A malformed one refuses start-up like a config
 * error, naming the variable and the entry's position, never its text (it usually carries a token).
 */
function parseHeaders(name: string, s: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  const parts = (s ?? '').split(',')
  parts.forEach((part, n) => {
    if (part.trim() === '') return
    const i = part.indexOf('=')
    const refuse = (why: string) => {
      throw new ConfigError('environment', [
        `${name}: entry ${n + 1} of ${parts.length} ${why} (comma-separated key=value pairs, percent-encoded)`,
      ])
    }
    if (i <= 0 || part.slice(0, i).trim() === '') refuse('is not key=value')
    try {
      out[decodeURIComponent(part.slice(0, i).trim())] = decodeURIComponent(part.slice(i + 1).trim())
    } catch {
      refuse('has a malformed percent-encoding')
    }
  })
  return out
}

/** Sampler from OTEL_TRACES_SAMPLER / _ARG, else the config's ratio (parent-based). */
function sampler(env: NodeJS.ProcessEnv, ratio: number): { ratio: number; parentBased: boolean } {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase()
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG)
  const argRatio = env.OTEL_TRACES_SAMPLER_ARG !== undefined && arg >= 0 && arg <= 1 ? arg : 1
  switch (name) {
    case 'always_on':
      return { ratio: 1, parentBased: false }
    case 'always_off':
      return { ratio: 0, parentBased: false }
    case 'traceidratio':
      return { ratio: argRatio, parentBased: false }
    case 'parentbased_always_on':
      return { ratio: 1, parentBased: true }
    case 'parentbased_always_off':
      return { ratio: 0, parentBased: true }
    case 'parentbased_traceidratio':
      return { ratio: argRatio, parentBased: true }
    default:
      return { ratio, parentBased: true }
  }
}

/**
 * Whether tracing is on and how: the config section, overridden by the standard OTEL_* variables.
 * `OTEL_TRACES_EXPORTER=otlp` turns it on, `none` (or `OTEL_SDK_DISABLED=true`) off; null: off.
 */
export function tracingSettings(config: TracingConfig, env: NodeJS.ProcessEnv): TracingSettings | null {
  const exporters = exportersOf(env)
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || exporters.includes('none')) return null
  if (!config.enabled && !exporters.includes('otlp')) return null
  const tracesUrl = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || config.endpoint || DEFAULT_ENDPOINT
  const url = tracesUrl || `${base.replace(/\/+$/, '')}/v1/traces`
  const p = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim()
  const protocol = p === 'http/json' || p === 'http/protobuf' ? p : config.protocol
  const s = sampler(env, config.sampleRatio)
  return {
    url,
    protocol,
    sampleRatio: s.ratio,
    parentBased: s.parentBased,
    propagate: config.propagateToUpstreams,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || config.serviceName,
    headers: {
      ...parseHeaders('OTEL_EXPORTER_OTLP_HEADERS', env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseHeaders('OTEL_EXPORTER_OTLP_TRACES_HEADERS', env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    limits: {
      valueLength: limitOf(
        env,
        ['OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'],
        DEFAULT_VALUE_LENGTH,
      ),
      count: limitOf(env, ['OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT'], DEFAULT_ATTRIBUTE_COUNT),
    },
  }
}

/** OTEL_TRACES_EXPORTER as the specification has it: a comma-separated list (`otlp`, `none`, …). */
function exportersOf(env: NodeJS.ProcessEnv): string[] {
  return (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean)
}

/**
 * OTEL_* values chaingate does not follow, one warning each for the start-up log: only the OTLP exporter over HTTP
 * is built in, so `grpc` (a collector's port 4317) or a `zipkin` exporter would otherwise fail or stay off silently.
 */
export function unsupportedTracingEnv(env: NodeJS.ProcessEnv): string[] {
  const out = exportersOf(env)
    .filter((e) => e !== 'otlp' && e !== 'none')
    .map((e) => `OTEL_TRACES_EXPORTER: ${e} is not supported (otlp or none); ignored`)
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const p = env[name]?.trim()
    if (p && p !== 'http/protobuf' && p !== 'http/json')
      out.push(`${name}: ${p} is not supported (http/protobuf or http/json, the collector's OTLP/HTTP port); ignored`)
  }
  return out
}

/** TRACING_OFF, or the OpenTelemetry SDK loaded on demand (never imported when tracing is off). */
export async function startTracing(settings: TracingSettings | null): Promise<Tracing> {
  if (settings === null) return TRACING_OFF
  const { createSdkTracing } = await import('./tracing-sdk.ts')
  return createSdkTracing(settings)
}
