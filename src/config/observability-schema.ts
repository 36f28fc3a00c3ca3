/**
 * The config's observability sections: the log (docs/config.md) and OpenTelemetry traces (docs/deploy.md,
 * "Traces"; src/observability/tracing.ts reads them with the standard OTEL_* variables over them).
 */
import { z } from 'zod'

export const LogConfigSchema = z
  .object({
    level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** One log line per gateway request (at info). */
    requests: z.boolean().default(true),
    /**
     * Where `chaingate start` writes info lines (requests included): `file` = <dataDir>/logs/chaingate.log (the
     * terminal then shows only the banner, warnings and errors), `stdout` = JSON lines on stdout; `auto`: file
     * when every network is embedded (the local setup), else stdout. `--log-requests` overrides it.
     */
    destination: z.enum(['auto', 'file', 'stdout']).default('auto'),
  })
  .strict()

export const TracingConfigSchema = z
  .object({
    /** Export traces over OTLP/HTTP. `OTEL_TRACES_EXPORTER=otlp` turns them on without this. */
    enabled: z.boolean().default(false),
    /** OTLP/HTTP base URL (…/v1/traces is added); null: OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318. */
    endpoint: z.url().nullable().default(null),
    /** Wire format; OTEL_EXPORTER_OTLP_PROTOCOL overrides it. */
    protocol: z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
    /** Share of new traces recorded (0..1); a valid key's client's `traceparent` sampled flag is followed. */
    sampleRatio: z.number().min(0).max(1).default(0.01),
    /** Send each upstream attempt's W3C `traceparent` to the node (HTTP nodes). */
    propagateToUpstreams: z.boolean().default(false),
    /** The `service.name` resource attribute; OTEL_SERVICE_NAME overrides it. */
    serviceName: z.string().min(1).default('chaingate'),
  })
  .strict()
