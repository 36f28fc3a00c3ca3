/** A JSON client of the admin API (docs/admin-api.md) for the admin tests. */
import { request } from 'undici'

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef'

export interface AdminReply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: any
  text: string
}

export function adminClient(
  base: string,
  token: string | null = ADMIN_TOKEN,
  extraHeaders: Record<string, string> = {},
) {
  const send = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => {
    const res = await request(`${base}/admin/v1${path}`, {
      method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...extraHeaders,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    const text = await res.body.text()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: res.statusCode, headers: res.headers, body: parsed, text } as AdminReply
  }
  return {
    get: (path: string) => send('GET', path),
    post: (path: string, body?: unknown) => send('POST', path, body ?? {}),
    put: (path: string, body: unknown) => send('PUT', path, body),
    send,
  }
}
