/**
 * wrk as the pinned benchmarks' load generator (bench/pinned.bench.ts, bench/solana-balance.bench.ts): a C program,
 * so it costs the measured process's core nothing and itself far less than autocannon. A Lua script makes every
 * request (a fixed body, `eth_getBalance` of a new address each call, or the next line of a file in a template) and
 * prints one JSON line with the totals and latency percentiles.
 * Without wrk (Debian/Ubuntu: `apt-get install -y wrk`; macOS: `brew install wrk`) the bench falls back to
 * autocannon, run in the bench process on the load core: the figures are then less steady (it costs ~30 µs of CPU
 * per call itself).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { locateProgram } from '../test/support/programs.ts'

export interface WrkResult {
  rps: number
  requests: number
  /** Microseconds. */
  p50: number
  p99: number
  /** Socket errors and timeouts. */
  errors: number
  /** Answers with a status other than 2xx/3xx (e.g. 503 overload). */
  non2xx: number
}

/**
 * `fixed`: one body for every request; `newAddress`: eth_getBalance of an address no earlier request used;
 * `eachLine`: `before` + one line of `file` + `after`, the next line each request (each wrk thread from its own
 * part of the file, wrapping at its end), e.g. Solana's getBalance of a new base58 key per call.
 */
export type Body =
  | { kind: 'fixed'; body: string }
  | { kind: 'newAddress' }
  | { kind: 'eachLine'; file: string; before: string; after: string }

/** wrk found as the tests find their programs (test/support/programs.ts: PATH, and the install hint). */
export function hasWrk(): boolean {
  return locateProgram('wrk').path !== undefined
}

const luaString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`

/** Every request: the fixed body, eth_getBalance of an address no earlier request used, or the file's next line. */
function script(body: Body, threads: number): string {
  const make =
    body.kind === 'fixed'
      ? `local fixed = ${luaString(body.body)}\nrequest = function() return wrk.format(nil, nil, nil, fixed) end`
      : body.kind === 'eachLine'
        ? [
            // `id` is each thread's global (set from the main state, as wrk's setup does), 1 to threads.
            'local count = 0',
            'setup = function(thread) count = count + 1; thread:set("id", count) end',
            'local lines, at = {}, 0',
            `local before, after = ${luaString(body.before)}, ${luaString(body.after)}`,
            'init = function()',
            `  for line in io.lines(${luaString(body.file)}) do lines[#lines + 1] = line end`,
            `  at = math.floor(#lines * ((id or 1) - 1) / ${threads})`,
            'end',
            'request = function()',
            '  at = at % #lines + 1',
            '  return wrk.format(nil, nil, nil, before .. lines[at] .. after)',
            'end',
          ].join('\n')
        : [
            'local n = 0',
            'local salt = 0',
            'setup = function(thread) salt = salt + 1; thread:set("salt", salt) end',
            'init = function() salt = (salt or 1) * 65536 + math.random(0, 65535) end',
            'request = function()',
            '  n = n + 1',
            '  return wrk.format(nil, nil, nil, string.format(',
            `    '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x%016x%024x","latest"]}', salt, n))`,
            'end',
          ].join('\n')
  return `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
${make}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\n{"requests":%d,"durationUs":%d,"p50":%d,"p99":%d,"errors":%d,"non2xx":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
`
}

/** One wrk run (`threads` threads, under `prefix`, e.g. taskset) against url. */
export async function wrk(
  url: string,
  body: Body,
  opts: { connections: number; seconds: number; threads?: number; timeoutSeconds?: number; prefix?: string[] },
): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-wrk-'))
  const file = join(dir, 'load.lua')
  const threads = Math.min(opts.threads ?? 1, opts.connections)
  writeFileSync(file, script(body, threads))
  const argv = [
    'wrk',
    '-t',
    String(threads),
    '-c',
    String(opts.connections),
    '-d',
    `${opts.seconds}s`,
    '--timeout',
    `${opts.timeoutSeconds ?? 10}s`,
    '-s',
    file,
    url,
  ]
  const [cmd, ...args] = [...(opts.prefix ?? []), ...argv]
  try {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(cmd!, args, { maxBuffer: 1 << 20 }, (err, stdout, stderr) =>
        err ? reject(new Error(`wrk failed: ${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    )
    const line = out.split('\n').find((l) => l.startsWith('{"requests"'))
    if (!line) throw new Error(`wrk printed no summary:\n${out}`)
    const r = JSON.parse(line) as { requests: number; durationUs: number; p50: number; p99: number }
    return { ...(JSON.parse(line) as WrkResult), rps: r.requests / (r.durationUs / 1e6) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The fallback without wrk: autocannon in this process (which the bench pins to the load core). */
export async function autocannonLoad(
  url: string,
  body: Body,
  opts: { connections: number; seconds: number },
): Promise<WrkResult> {
  let n = 0
  const lines = body.kind === 'eachLine' ? readFileSync(body.file, 'utf8').split('\n').filter(Boolean) : []
  const next =
    body.kind === 'eachLine'
      ? () => `${body.before}${lines[n++ % lines.length]}${body.after}`
      : () =>
          `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x${(0xa0000000 + n++)
            .toString(16)
            .padStart(40, '0')}","latest"]}`
  const r = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body.kind === 'fixed' ? body.body : next(),
    ...(body.kind !== 'fixed'
      ? { requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: next() }) }] }
      : {}),
    connections: opts.connections,
    pipelining: 1,
    duration: opts.seconds,
    timeout: 10,
  })
  return {
    rps: r.requests.total / r.duration,
    requests: r.requests.total,
    p50: r.latency.p50 * 1000,
    p99: r.latency.p99 * 1000,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  }
}
