import { describe, expect, it } from 'vitest'
import { startTracing, TRACING_OFF, tracingSettings, type TracingConfig, unsupportedTracingEnv } from './tracing.ts'

const config: TracingConfig = {
  enabled: false,
  endpoint: null,
  protocol: 'http/protobuf',
  sampleRatio: 0.01,
  propagateToUpstreams: false,
  serviceName: 'chaingate',
}

describe('tracing settings', () => {
  it('off by default: no settings, the no-op facade, no span', async () => {
    expect(tracingSettings(config, {})).toBeNull()
    const t = await startTracing(null)
    expect(t).toBe(TRACING_OFF)
    expect(t.start('rpc call', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBeUndefined()
  })

  it('OTEL_TRACES_EXPORTER=otlp turns it on with the standard variables', () => {
    const s = tracingSettings(config, {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'rpc-edge',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20x,tenant=a',
    })
    expect(s).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/json',
      sampleRatio: 0.25,
      parentBased: false,
      propagate: false,
      serviceName: 'rpc-edge',
      headers: { authorization: 'Bearer x', tenant: 'a' },
      limits: { valueLength: 1024, count: 32 },
    })
  })

  it('span limits: bounded by default, OTEL_(SPAN_)ATTRIBUTE_*_LIMIT override them', () => {
    const on = { ...config, enabled: true }
    expect(tracingSettings(on, {})?.limits).toEqual({ valueLength: 1024, count: 32 })
    expect(
      tracingSettings(on, { OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4096', OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '64' })?.limits,
    ).toEqual({ valueLength: 4096, count: 64 })
    expect(
      tracingSettings(on, {
        OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '200',
        OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4096',
        OTEL_ATTRIBUTE_COUNT_LIMIT: 'lots',
      })?.limits,
    ).toEqual({ valueLength: 200, count: 32 })
  })

  it('the config turns it on; OTEL_TRACES_EXPORTER=none and OTEL_SDK_DISABLED turn it off', () => {
    const on = { ...config, enabled: true, endpoint: 'http://otel:4318', sampleRatio: 0.5, propagateToUpstreams: true }
    expect(tracingSettings(on, {})).toMatchObject({
      url: 'http://otel:4318/v1/traces',
      protocol: 'http/protobuf',
      sampleRatio: 0.5,
      parentBased: true,
      propagate: true,
    })
    expect(tracingSettings(on, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/x' })?.url).toBe('http://t:1/x')
    expect(tracingSettings(on, { OTEL_TRACES_EXPORTER: 'none' })).toBeNull()
    expect(tracingSettings(on, { OTEL_SDK_DISABLED: 'true' })).toBeNull()
  })

  it('OTEL_TRACES_EXPORTER as a list; what cannot be followed (grpc, other exporters) is named for the log', () => {
    expect(tracingSettings(config, { OTEL_TRACES_EXPORTER: 'console, otlp' })?.url).toBe(
      'http://localhost:4318/v1/traces',
    )
    expect(tracingSettings(config, { OTEL_TRACES_EXPORTER: 'zipkin' })).toBeNull()
    expect(unsupportedTracingEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual(
      [],
    )
    const warnings = unsupportedTracingEnv({ OTEL_TRACES_EXPORTER: 'otlp,zipkin', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toContain('zipkin')
    expect(warnings[1]).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported')
  })

  it("sampling: a new trace at ratio 0 makes no span, a client's sampled trace is continued", async () => {
    const t = await startTracing({
      url: 'http://127.0.0.1:9/v1/traces',
      protocol: 'http/json',
      sampleRatio: 0,
      parentBased: true,
      propagate: false,
      serviceName: 'test',
      headers: {},
      limits: { valueLength: 1024, count: 32 },
    })
    try {
      expect(t.on).toBe(true)
      expect(t.start('rpc call', undefined)).toBeUndefined()
      expect(t.start('rpc call', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')).toBeUndefined()
      // A malformed header is no parent: the ratio applies, it cannot force a trace.
      expect(t.start('rpc call', 'garbage')).toBeUndefined()
      expect(t.start('rpc call', '00-00000000000000000000000000000000-00f067aa0ba902b7-01')).toBeUndefined()
      const span = t.start('rpc call', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')
      expect(span?.traceparent()).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/)
      expect(span?.child('upstream attempt').traceparent()).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-/)
      // A call that may not force a trace (its key is not valid): the ratio decides, 0 here.
      const sampled = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
      expect(t.start('rpc call', sampled, {}, performance.now(), false)).toBeUndefined()
    } finally {
      await t.shutdown()
    }
  })
})
