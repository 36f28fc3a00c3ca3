/** Content negotiation for the hot route's answers (src/gateway/http/rpc-route.ts gzips large ones). */

/** Whether an Accept-Encoding header allows gzip (`gzip` or `*`, with a q-value above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';').map((p) => p.trim().toLowerCase())
    if (name !== 'gzip' && name !== '*') continue
    const q = params.find((p) => p.startsWith('q='))
    if (q === undefined || Number(q.slice(2)) > 0) return true
  }
  return false
}
