/**
 * Preload for a bench target (`BENCH_NODE_ARGS='--import ./bench/gc-time.mjs'`): the main thread's garbage
 * collection pauses by kind, summed over the process's life and per HTTP request it received (warm-up included),
 * written to stderr as one JSON line when the process exits.
 */
import { subscribe } from 'node:diagnostics_channel'
import { PerformanceObserver, constants } from 'node:perf_hooks'

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'markCompact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakCallbacks',
}
const totals = {}
let requests = 0
subscribe('http.server.request.start', () => requests++)
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = KINDS[e.detail?.kind] ?? 'other'
    const t = (totals[kind] ??= { count: 0, ms: 0 })
    t.count++
    t.ms += e.duration
  }
}).observe({ entryTypes: ['gc'] })
process.on('exit', () => {
  const cpu = process.cpuUsage()
  const perCall = Object.fromEntries(
    Object.entries(totals).map(([k, t]) => [k, Number(((t.ms * 1000) / requests).toFixed(2))]),
  )
  const cpuMs = (cpu.user + cpu.system) / 1000
  process.stderr.write(`${JSON.stringify({ pid: process.pid, requests, gcUsPerCall: perCall, gc: totals, cpuMs })}\n`)
})
