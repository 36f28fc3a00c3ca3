/**
 * The data dir holds every API key, email, password hash and wallet session: only the user running chaingate may
 * read it. Modes are set with chmod after creating, so they do not depend on the process umask (mkdir's and
 * open's mode are masked by it). Nothing to do on Windows, where POSIX modes do not apply.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs'

export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600
const posix = process.platform !== 'win32'

/**
 * Creates `dir` (and missing parents) and makes it 0700. An existing dir of this user is tightened to 0700 too (a
 * data dir made by an older version), except a shared one (sticky or world-writable, like /tmp), and a dir owned by
 * someone else is left as it is (only its owner may chmod it).
 */
export function ensurePrivateDir(dir: string): void {
  const existed = existsSync(dir)
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  if (!posix) return
  if (existed && (statSync(dir).mode & 0o1002) !== 0) return
  try {
    chmodSync(dir, PRIVATE_DIR_MODE)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err
  }
}

/** Creates `file` empty if missing and makes it 0600 (an existing file keeps its content). */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE))
  if (posix) chmodSync(file, PRIVATE_FILE_MODE)
}

/** Makes `file` 0600 when it exists (SQLite's -wal and -shm files appear on their own). */
export function tightenIfExists(file: string): void {
  if (posix && existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE)
}
