/**
 * Which process listens on a TCP port, as Linux tells it: the socket inode from /proc/net/tcp{,6} (state 0A,
 * LISTEN), then the process whose /proc/<pid>/fd holds `socket:[inode]`. Another user's processes are not readable,
 * and other systems have no /proc: then the line says it cannot tell rather than guess.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

const LISTEN = '0A'

function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      const local = f[1]
      if (!local || f[3] !== LISTEN) continue
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port && f[9] && f[9] !== '0')
        inodes.add(f[9])
    }
  }
  return inodes
}

/**
 * The program's file name from argv[0]; `comm` is only the fallback, since it holds the main thread's name, which
 * Node 24 sets to `MainThread`.
 */
function programName(pid: string): string {
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? ''
    const base = argv0.slice(argv0.lastIndexOf('/') + 1)
    if (base) return base
  } catch {}
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() || '?'
  } catch {
    return '?'
  }
}

/** `pid 123 (anvil)` for each process holding a listening socket on the port; empty when it cannot tell. */
export function portHolders(port: number): string[] {
  const inodes = listeningInodes(port)
  if (inodes.size === 0) return []
  const found: string[] = []
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((e) => /^\d+$/.test(e))
  } catch {
    return []
  }
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue // gone, or another user's
    }
    const holds = fds.some((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`)
        return target.startsWith('socket:[') && inodes.has(target.slice(8, -1))
      } catch {
        return false
      }
    })
    if (!holds) continue
    found.push(`pid ${pid} (${programName(pid)})`)
  }
  return found
}

/** The clause a busy-port line ends with: who holds it, or that the OS does not say. */
export function portHolderClause(port: number): string {
  const holders = portHolders(port)
  return holders.length > 0
    ? `; held by ${holders.join(', ')}`
    : '; the OS does not say which process holds it (another user, or no /proc)'
}
