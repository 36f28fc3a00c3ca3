/** Small generic types shared across the tree (kept here so no domain folder owns them). */

/**
 * A value now, or a promise of it when it must wait (e.g. a limit store asking Redis): callers test for a
 * promise instead of awaiting every call, so synchronous paths stay synchronous (docs/benchmarks.md).
 */
export type MaybePromise<T> = T | Promise<T>
