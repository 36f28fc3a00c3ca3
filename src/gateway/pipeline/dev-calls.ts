/**
 * At most MAX_DEV_CALLS devnet method calls (`evm_*`, `anvil_*`, `hardhat_*`: the catalog's `served: 'devnet'`) of
 * one key run at once in this process (docs/config.md, `devMethods`): each may keep the embedded chain busy (mining
 * is also priced by the blocks it asks, src/gateway/pipeline/steps/price.ts), and a key must not queue up work for
 * everyone. One more gets TOO_MANY_DEV_CALLS (-32005, HTTP 429, free) without reaching the node.
 */
import { errors } from '../../errors/index.ts'
import { anyMethodsWhere } from '../../methods/catalog.ts'
import type { MaybePromise } from '../../shared/types.ts'

export const MAX_DEV_CALLS = 4

const DEV: ReadonlySet<string> = new Set(anyMethodsWhere((e) => e.served === 'devnet'))

/** Whether a method is a devnet method (counted against its key's concurrent dev calls). */
export const isDevMethod = (method: string): boolean => DEV.has(method)

/** Dev calls running now, by key id. */
const running = new Map<string, number>()

/** Takes `n` of the key's slots: false (nothing taken) when fewer are free. */
export function takeDevSlots(keyId: string, n: number): boolean {
  const now = running.get(keyId) ?? 0
  if (now + n > MAX_DEV_CALLS) return false
  running.set(keyId, now + n)
  return true
}

export function releaseDevSlots(keyId: string, n: number): void {
  const left = (running.get(keyId) ?? 0) - n
  if (left > 0) running.set(keyId, left)
  else running.delete(keyId)
}

/** Runs one dev call in a slot of its key, or throws TOO_MANY_DEV_CALLS; the slot is free once it settles. */
export function inDevSlot<T>(keyId: string, send: () => MaybePromise<T>): MaybePromise<T> {
  if (!takeDevSlots(keyId, 1)) throw errors.tooManyDevCalls(MAX_DEV_CALLS)
  let answer: MaybePromise<T>
  try {
    answer = send()
  } catch (err) {
    releaseDevSlots(keyId, 1)
    throw err
  }
  if (!(answer instanceof Promise)) {
    releaseDevSlots(keyId, 1)
    return answer
  }
  return answer.finally(() => releaseDevSlots(keyId, 1))
}
