#!/usr/bin/env node
/**
 * The test files whose outcome can change with the Node version, run with the Node that runs this script:
 * `.ci/run` runs the whole suite on Node 20 (`npm test`), then these on Node 24 (`npx -p node@24 -- node
 * scripts/node-version-tests.mjs`) instead of the whole suite a second time. Extra arguments go to vitest.
 * Add a file here when what it tests is Node's rather than chaingate's: a driver, a V8 behaviour, a built-in.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

export const NODE_VERSION_TESTS = {
  // SQLite: node:sqlite on Node ≥ 22.13, the better-sqlite3 addon on Node 20 (src/db/sqlite-driver.ts), in the main
  // thread and in the request explorer's writer thread; the usage ledger writes its batches through the same handle.
  sqlite: [
    'src/db/sqlite-driver.test.ts',
    'src/db/sqlite-schema.test.ts',
    'src/db/database.test.ts',
    'src/db/repositories.test.ts',
    'src/usage/requests/sqlite-worker.test.ts',
    'src/usage/requests/requests.test.ts',
    'src/usage/ledger.test.ts',
    'test/e2e/request-explorer.test.ts',
  ],
  // V8: object layouts (%DebugPrint), heap flags given to workers, memory held by the cache and the logger.
  v8: [
    'test/e2e/object-shapes.test.ts',
    'src/app/heap-growth.test.ts',
    'src/gateway/layers/cache-store.test.ts',
    'src/observability/logger.test.ts',
  ],
  // Node's fetch and its bundled undici (the pool's HTTP client is the undici package; fetch is Node's own).
  fetch: ['src/shared/builtin-fetch.test.ts', 'src/upstreams/pool/pool.test.ts', 'src/alerts/deliverer.test.ts'],
  // node:crypto: the wallet keystore (scrypt, AES-GCM), dashboard passwords (scrypt), JWTs, webhook signatures
  // (deliverer, above), config hashes.
  crypto: [
    'src/wallet/keystore.test.ts',
    'src/dashboard/auth/auth.test.ts',
    'src/keys/security/jwt.test.ts',
    'src/app/reload/version.test.ts',
  ],
  // The built package: `npm pack`, installed in a scratch project, imported by plain node.
  package: ['test/e2e/client-package.test.ts'],
  // WebSocket: frames written by the gateway, upstream connections, the wallet's client transport.
  websocket: [
    'src/gateway/http/ws-send.test.ts',
    'src/jsonrpc/ws-connection.test.ts',
    'src/wallet/client/websocket-transport.test.ts',
    'test/e2e/gateway-ws.test.ts',
  ],
  // End to end: the gateway over HTTP in process and as a `chaingate` process (signals, banner), the embedded Solana
  // devnet (LiteSVM, a native addon), the wallet over WebSocket.
  smoke: [
    'test/e2e/gateway-http.test.ts',
    'test/e2e/gateway-process.test.ts',
    'test/e2e/cli-signals.test.ts',
    'src/upstreams/devnet/solana/devnet.test.ts',
    'src/upstreams/devnet/solana/devnet-kit.test.ts',
    'test/e2e/wallet-app.test.ts',
  ],
}

const files = Object.values(NODE_VERSION_TESTS).flat()

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // A renamed or deleted file must fail here, not silently drop out of the Node 24 run.
  const missing = files.filter((f) => !existsSync(join(root, f)))
  if (missing.length > 0) {
    console.error(`scripts/node-version-tests.mjs lists files that do not exist: ${missing.join(', ')}`)
    process.exit(2)
  }
  console.log(`node ${process.version}: ${files.length} files whose behaviour depends on the Node version`)
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
  const run = spawnSync(process.execPath, [vitest, 'run', ...files, ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
  })
  process.exit(run.status ?? 1)
}
