/**
 * Preload for a bench target (`BENCH_NODE_ARGS='--import ./bench/gc-time.mjs'`): the main thread's garbage
 * collection pauses by kind, summed over the process's life and per HTTP request it received (warm-up included), the
 * upstream requests undici made, and the event loop's delay (p99, max, and the stalls over 50 ms seen by a 10 ms
 * timer, with their times), written to stderr as one JSON line when the process exits.
 */
import { subscribe } from 'node:diagnostics_channel'
import { PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks'

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'markCompact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakCallbacks',
}
const totals = {}
const loopDelay = monitorEventLoopDelay({ resolution: 5 })
loopDelay.enable()
let requests = 0
subscribe('http.server.request.start', () => requests++)
let upstreamRequests = 0
subscribe('undici:request:create', () => upstreamRequests++)
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = KINDS[e.detail?.kind] ?? 'other'
    const t = (totals[kind] ??= { count: 0, ms: 0 })
    t.count++
    t.ms += e.duration
  }
}).observe({ entryTypes: ['gc'] })
// Stalls: a 10 ms timer that fires over 50 ms late.
const longest = []
let last = performance.now()
setInterval(() => {
  const t = performance.now()
  if (t - last > 60 && longest.length < 50)
    longest.push([Math.round(performance.timeOrigin + last), Math.round(t - last - 10)])
  last = t
}, 10).unref()
process.on('exit', () => {
  const cpu = process.cpuUsage()
  const perCall = Object.fromEntries(
    Object.entries(totals).map(([k, t]) => [k, Number(((t.ms * 1000) / requests).toFixed(2))]),
  )
  const cpuMs = (cpu.user + cpu.system) / 1000
  const ms = (ns) => Number((ns / 1e6).toFixed(1))
  const delay = { p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max), over50ms: longest.length, longest }
  const line = {
    pid: process.pid,
    requests,
    upstreamRequests,
    gcUsPerCall: perCall,
    gc: totals,
    cpuMs,
    loopDelayMs: delay,
  }
  process.stderr.write(`${JSON.stringify(line)}\n`)
})
