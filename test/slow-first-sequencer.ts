/**
 * Test file order: the slowest files first, so the two workers are not left with one long file each at the end.
 * vitest orders by the durations it cached from the last run (node_modules/.vite/vitest/…/results.json), but a clean
 * clone (CI) has no cache and falls back to file size, which puts long-running small files last. The files below
 * are the slowest of a measured full run (docs/testing.md), longest first; they lead in this order, the rest follow
 * in vitest's own order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node'

export const SLOWEST_FILES: readonly string[] = [
  // Builds the Debian root, the stand-in base and the image (minutes on a fresh machine): first, beside the rest.
  'test/e2e/container-image.test.ts',
  'test/e2e/container-compose.test.ts',
  'test/e2e/scale-out-workers.test.ts',
  'test/e2e/deploy-package.test.ts',
  'test/e2e/scale-out-replicas.test.ts',
  'test/e2e/gateway-cli.test.ts',
  'test/e2e/scale-out-balancer.test.ts',
  'test/e2e/cli-reload.test.ts',
  'test/e2e/reload-load.test.ts',
  'test/e2e/browsers-without-chromium.test.ts',
  'test/e2e/alerts-workers.test.ts',
  'src/db/database.test.ts',
  'test/e2e/ws-failback.test.ts',
  'test/e2e/dashboard-mail.test.ts',
  'test/e2e/wallet-hardening.test.ts',
  'test/e2e/dashboard-hardening.test.ts',
  'test/e2e/cli-signals.test.ts',
  'test/e2e/ws-failover.test.ts',
  'test/e2e/cli-start.test.ts',
  'test/e2e/postgres-storage.test.ts',
  'test/e2e/upstream-misbehaviour.test.ts',
]

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (spec: TestSpecification) => {
      const i = SLOWEST_FILES.findIndex((f) => spec.moduleId.endsWith(`/${f}`))
      return i === -1 ? SLOWEST_FILES.length : i
    }
    // Array.prototype.sort is stable: files outside the list keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b))
  }
}
