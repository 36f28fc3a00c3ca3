/** Kept for imports that predate usage-queries.ts (the one reader of the usage ledger); new code imports that. */
export { queryUsage, type DayUsageRow as UsageRow } from './usage-queries.ts'
