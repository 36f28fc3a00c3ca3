/**
 * When the HTTP call whose pipeline runs synchronously right now arrived (`Date.now()` ms), or undefined. The edge
 * (src/gateway/http/rpc-route.ts) sets it around its synchronous call into the pipeline, and the upstream pool
 * (src/upstreams/pool/attempts.ts) takes the time already spent off the call's deadline, so the time a call waited
 * in this process (its body read, key checks) counts: no call waits longer than the deadline in all. A holder
 * rather than a parameter: the layers between them (cache, dedup) pass send options built once per method.
 */
export const callArrival: { at: number | undefined } = { at: undefined }
