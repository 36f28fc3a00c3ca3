/**
 * The per-call objects of an upstream call, sized by V8 before the first real one (src/shared/object-shapes.ts): a
 * Run of attempts (attempts.ts), and for HTTP nodes undici's Client (one per connection) and Request (one per call)
 * and our ForwardHandler. These three are made as a call makes them: a dispatch with post()'s options, on a
 * throwaway Client whose connector refuses at once, so no socket is opened and no node is asked anything. The
 * handler's call is already cancelled, so its failure touches no node's health.
 */
import { type buildConnector, Client } from 'undici'
import { sizeClass } from '../../shared/object-shapes.ts'
import { sizeRunClass } from './attempts.ts'
import { ForwardHandler } from './member.ts'
import { poolOptions } from './new-member.ts'
import type { PoolState } from './state.ts'

let runSized = false
let httpSized = false
const ignore = () => {}
const refuse: buildConnector.connector = (_options, callback) =>
  callback(new Error('a class-sizing client never connects'), null)

/** Once per process, before the first node is called: later calls find every class sized by complete objects. */
export function sizeCallClasses(pool: PoolState): void {
  if (!runSized) sizeRunClass(pool)
  runSized = true
  const m = pool.members.find((member) => member.pool !== undefined)
  if (httpSized || m === undefined) return
  httpSized = true
  const s = pool.settings
  const clients = sizeClass(() => {
    const client = new Client(m.url.origin, { ...poolOptions(m.timeoutMs), connect: refuse })
    const ctl = { abort: undefined, cancelled: true }
    const handler = new ForwardHandler(m, 1000, s, '{}', ignore, ignore, ctl, undefined, undefined)
    const opts = { method: 'POST', path: m.path, headers: m.headers, body: '{}', headersTimeout: 0, bodyTimeout: 0 }
    client.dispatch(opts, handler)
    return client
  })
  for (const client of clients) client.destroy().catch(ignore)
}
