/**
 * The console token, kept in `<dataDir>/wallet-console-token` (0600) so a bookmarked console URL survives restarts.
 * `chaingate wallet console-token rotate` or the console's "Rotate token" button replaces it; a running wallet
 * notices the new file on the next console request (the old token stops working at once).
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensurePrivateFile } from '../db/private-files.ts'

export const CONSOLE_TOKEN_FILE = 'wallet-console-token'
const TOKEN = /^[0-9a-f]{32,128}$/

export const consoleTokenPath = (dataDir: string): string => join(dataDir, CONSOLE_TOKEN_FILE)

function readToken(path: string): string | undefined {
  if (!existsSync(path)) return undefined
  const t = readFileSync(path, 'utf8').trim()
  return TOKEN.test(t) ? t : undefined
}

/** Writes a new random token (0600, replaced atomically) and returns it. */
export function rotateConsoleToken(dataDir: string): string {
  const token = randomBytes(16).toString('hex')
  const path = consoleTokenPath(dataDir)
  const tmp = `${path}.${process.pid}.tmp`
  ensurePrivateFile(tmp)
  writeFileSync(tmp, `${token}\n`)
  renameSync(tmp, path)
  return token
}

export function loadOrCreateConsoleToken(dataDir: string): string {
  return readToken(consoleTokenPath(dataDir)) ?? rotateConsoleToken(dataDir)
}

export interface ConsoleTokens {
  /** The token in force (re-read when the file changed, e.g. rotated by the CLI). */
  current(): string
  rotate(): string
}

export function createConsoleTokens(dataDir: string): ConsoleTokens {
  const path = consoleTokenPath(dataDir)
  let token = loadOrCreateConsoleToken(dataDir)
  let stamp = ''
  const stampOf = () => {
    try {
      const s = statSync(path)
      return `${s.mtimeMs}:${s.ino}:${s.size}`
    } catch {
      return 'missing'
    }
  }
  stamp = stampOf()
  return {
    current() {
      const now = stampOf()
      if (now !== stamp) {
        // A deleted or garbled file gets a fresh token: never fall back to accepting an empty one.
        token = readToken(path) ?? rotateConsoleToken(dataDir)
        stamp = stampOf()
      }
      return token
    },
    rotate() {
      token = rotateConsoleToken(dataDir)
      stamp = stampOf()
      return token
    },
  }
}
