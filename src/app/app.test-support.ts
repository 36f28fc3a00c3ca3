/**
 * Test and bench access to a running app's parts (the database, ledger, pools, hubs, ...): production code gets
 * only the handle (RunningApp, src/app/build.ts) and never imports a `*.test-support.ts` file.
 *
 *   const { ledger, keySnapshot } = appInternals(app)
 */
import type { RunningApp } from './build.ts'
import { type AppInternals, internalsOf } from './internals.ts'

export type { AppInternals }

/** The parts startApp built for `app`. */
export const appInternals = (app: RunningApp): AppInternals => internalsOf(app)
