/**
 * The dapp's pairing secret per wallet URL (docs/wallet.md "Pairing"): one secret per store and URL, also when
 * several transports start together or several tabs share localStorage.
 */

/** Keeps pairing secrets by wallet URL (may be async, e.g. a file or a keychain). */
export interface PairingStore {
  get(key: string): string | undefined | null | Promise<string | undefined | null>
  set(key: string, secret: string): void | Promise<void>
}

type BrowserStorage = { getItem(k: string): string | null; setItem(k: string, v: string): void }
const browserStorage = () => (globalThis as { localStorage?: BrowserStorage }).localStorage

/** localStorage, or memory where storage is disabled (sandboxed frame, privacy mode). */
function storageOrMemoryStore(): PairingStore {
  const memory = new Map<string, string>()
  return {
    get(key) {
      try {
        const storage = browserStorage()
        if (storage) return storage.getItem(`chaingate-wallet-pairing:${key}`)
      } catch {}
      return memory.get(key)
    },
    set(key, secret) {
      try {
        const storage = browserStorage()
        if (storage) return storage.setItem(`chaingate-wallet-pairing:${key}`, secret)
      } catch {}
      memory.set(key, secret)
    },
  }
}

/** In a browser one store for the whole page, so its transports share one lookup (see pairingSecret). */
let pageStore: PairingStore | undefined
export function defaultPairingStore(): PairingStore {
  if (browserStorage()) return (pageStore ??= storageOrMemoryStore())
  return storageOrMemoryStore() // Node: memory, per transport
}

function newPairingSecret(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32))
  let bin = ''
  for (const b of bytes) bin += String.fromCharCode(b)
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/**
 * The secret being found or made, per store and key: transports created together (two clients at page load) share
 * one lookup instead of each making its own secret.
 */
const pairingLookups = new WeakMap<PairingStore, Map<string, Promise<string>>>()

/**
 * The stored secret for `key`, or a new one stored now. After writing, the store is read again and what it holds
 * wins: another tab sharing localStorage may have written its own secret in between, and every tab must present
 * the one that stays stored.
 */
async function pairingSecret(store: PairingStore, key: string): Promise<string> {
  let lookups = pairingLookups.get(store)
  if (!lookups) pairingLookups.set(store, (lookups = new Map()))
  let lookup = lookups.get(key)
  if (!lookup) {
    lookup = (async () => {
      const stored = await store.get(key)
      if (stored) return stored
      const secret = newPairingSecret()
      await store.set(key, secret)
      return (await store.get(key)) || secret
    })()
    const settled = () => lookups.delete(key)
    lookup.then(settled, settled)
    lookups.set(key, lookup)
  }
  return lookup
}

/** The URL to open: the wallet URL plus `pairing=<secret>` (created and stored on first use). */
export async function pairedUrl(url: string, store: PairingStore | false): Promise<string> {
  if (store === false) return url
  const u = new URL(url)
  u.searchParams.delete('pairing')
  u.searchParams.set('pairing', await pairingSecret(store, u.toString()))
  return u.toString()
}
