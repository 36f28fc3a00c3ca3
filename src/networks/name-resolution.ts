/**
 * Whether this machine resolves a network's host name (e.g. `devnet-a.localhost`). Browsers and curl resolve
 * `*.localhost` to loopback themselves, but Node's resolver (getaddrinfo) often does not, so a client written in
 * Node can use the host form only where this says yes; elsewhere the path form comes first.
 */
import { lookup } from 'node:dns/promises'

/** True when `hostname` resolves within `timeoutMs`; a slow or failing resolver counts as no. */
export async function resolves(hostname: string, timeoutMs = 500): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), timeoutMs)
    timer.unref()
  })
  try {
    return await Promise.race([
      lookup(hostname.replace(/:\d+$/, '')).then(
        () => true,
        () => false,
      ),
      timeout,
    ])
  } finally {
    clearTimeout(timer)
  }
}

const cache = new Map<string, Promise<boolean>>()

/** `resolves`, asked once per host name for the life of the process (the dashboard asks on every key page). */
export function resolvesCached(hostname: string): Promise<boolean> {
  let answer = cache.get(hostname)
  if (!answer) cache.set(hostname, (answer = resolves(hostname)))
  return answer
}
