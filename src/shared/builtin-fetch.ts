/**
 * Keeps Node's built-in fetch on Node's own undici. Loading the undici package installs its own Agent as the
 * process's global dispatcher when none is set, and Node's fetch then sends through it: every fetch in the process
 * (the devnets' health checks, the wallet's chain reads, libraries') runs through the same undici code as the
 * upstream pools' calls, and that code's inline caches, seeing both kinds of clients and sockets, go megamorphic:
 * ~1.5 µs more per upstream call in `chaingate start` (docs/benchmarks.md, "Shapes at start-up"). Fetching a data:
 * URL loads Node's own undici at once, which installs its Agent; the package then leaves it in place. The entry point
 * imports this module first, before anything that imports undici.
 */
// Without fetch (`node --no-experimental-fetch`) nothing is to be kept apart, and nothing must fail.
if (typeof fetch === 'function')
  void fetch('data:,')
    .then((r) => r.arrayBuffer())
    .catch(() => {})
