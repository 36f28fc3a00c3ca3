import { defineConfig } from 'vitest/config'
import { SlowFirstSequencer } from './test/slow-first-sequencer.ts'

export default defineConfig({
  test: {
    // Three files at a time on two cores: the e2e files wait on child processes, chains and servers much of the time
    // (a full run used ~1.1 cores with two workers: 634 s; 438 s with three, docs/testing.md).
    maxWorkers: 3,
    // The slowest files start first, so the run does not end on one long file (test/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Child processes run bin/chaingate.mjs, so dist/: made current once before the files start, so the suite still
    // tests the sources as edited (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    // ...and not again by each child when a source is edited during the run (concurrent builds would race).
    env: { CHAINGATE_DIST_CHECKED: '1' },
    projects: [
      // Unit files share their worker's loaded modules (no fresh module graph per file): less than half the CPU
      // (docs/testing.md). They restore what they change (env, timers, signal handlers), so sharing is safe.
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], isolate: false } },
      { extends: true, test: { name: 'e2e', include: ['test/**/*.test.ts'] } },
    ],
  },
})
