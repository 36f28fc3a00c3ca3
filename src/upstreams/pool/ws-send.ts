/**
 * Sending a call to a node reached only over ws(s) (src/upstreams/pool/member.ts sends over HTTP): the body is parsed
 * to give the call the connection's own id, and the answer is serialized back and judged as over HTTP.
 */
import { judgeAnswer, refusalOfError } from './classify.ts'
import { block, counted, toGatewayError, UpstreamHttpError } from './failures.ts'
import type { SendSettings, Member, UpstreamAnswer } from './types.ts'

/** A node reached only by ws(s): the body is parsed to give the call the connection's own id, and serialized back. */
export async function overWebSocket(
  m: Member,
  body: string | Buffer,
  timeoutMs: number,
  s: SendSettings,
): Promise<UpstreamAnswer> {
  const started = performance.now()
  let answer: unknown
  const failed = (err: Error) => {
    const now = Date.now()
    m.downUntil = now + s.cooldownMs
    m.stats.recordFailure()
    m.breaker.failure(now)
    return counted(err)
  }
  try {
    answer = await m.socket!.request(JSON.parse(body.toString()), timeoutMs)
  } catch (err) {
    throw failed(err as Error) // already a gateway error naming the network
  }
  const error = (answer as { error?: { code?: unknown; message?: unknown } } | null)?.error
  const refusal = error ? refusalOfError(error.code, error.message) : undefined
  if (refusal !== undefined) {
    m.stats.recordFailure()
    throw counted(block(m, refusal, `JSON-RPC error ${String(error!.code)}`, s))
  }
  // The connection matched the answer to the call by id; its shape is judged as over HTTP.
  const bytes = Buffer.from(JSON.stringify(answer) ?? '')
  const verdict = judgeAnswer(body, bytes)
  if (typeof verdict === 'object')
    throw failed(
      toGatewayError(
        s.network,
        new UpstreamHttpError(
          0,
          ` over WebSocket with something that is not a JSON-RPC answer to the call: ${verdict.fault}`,
        ),
        timeoutMs,
      ),
    )
  m.downUntil = 0
  m.backoffMs = 0
  m.breaker.success()
  const latencyMs = performance.now() - started
  m.stats.recordLatency(latencyMs)
  return { body: bytes, latencyMs, upstream: m.label, attempts: 1, isError: verdict === 'error' }
}
