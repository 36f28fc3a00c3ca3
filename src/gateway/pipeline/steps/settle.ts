/**
 * Step 5, settle: what a request finally costs, written once to the limit store, the usage ledger and the
 * metrics. Every transport ends here, so "what is charged, what is counted" exists once.
 *
 * Economies (docs/benchmarks.md): the ledger and the metrics count in nested Maps keyed by the strings they are
 * given (no per-call composed keys), and `record` builds no object that outlives the call.
 */
import type { KeyEntry } from '../../../keys/snapshot.ts'
import type { CostTable } from '../../../credits/costs.ts'
import type { LimitStore } from '../../../credits/limits/memory.ts'
import type { MaybePromise } from '../../../shared/types.ts'
import type { UsageLedger } from '../../../usage/ledger.ts'
import type { UpstreamCall, UpstreamUsage } from '../../../usage/upstream-usage.ts'
import type { RequestRecorder } from '../../../usage/requests/recorder.ts'
import { ERROR_REGISTRY, type ErrorCode, type LimitCode } from '../../../errors/registry.ts'
import type { Metrics } from '../../../observability/metrics.ts'
import type { Clock } from '../types.ts'

export interface SettleDeps {
  costs: CostTable
  limits: LimitStore
  ledger: UsageLedger
  metrics: Metrics
  clock: Clock
  /** Which upstream answered each forwarded call, and at what upstream cost (src/usage/upstream-usage.ts). */
  upstreamUsage?: UpstreamUsage | undefined
  /** The request explorer's records: here only for calls refused before they ran (the run paths record the rest). */
  requests?: RequestRecorder | undefined
}

/** `ok`, `error` (an error answer), `unavailable` (no node answered), or `http_<status>` (refused whole). */
export type CallOutcome = string

/** A forwarded call's upstream side, as upstream usage records it (src/usage/upstream-usage.ts). */
export type UpstreamSide = UpstreamCall

/** A call that ran: who called, what it cost, how it ended. `errorKind`: e.g. `rpc:-32000`, `http:503`. */
export interface SettledCall {
  entry: KeyEntry
  network: string
  method: string
  credits: number
  outcome: CallOutcome
  errorKind: string | undefined
  now: number
}

/** A request a limit refused: recorded under `method` (`batch` for a batch), with each of its calls' `methods`. */
export interface LimitedRequest {
  entry: KeyEntry
  network: string
  code: LimitCode
  method: string
  methods: readonly string[]
  now: number
}

/** Subscription events written to clients under one `label`: how many (`events`, default 1) and their credits. */
export interface ChargedEvents {
  entry: KeyEntry
  network: string
  label: string
  credits: number
  now: number
  events?: number
}

export interface Settle {
  /** One call's usage row and request counter. */
  call(c: SettledCall): void
  /** A forwarded call's upstream side (UpstreamSide). */
  upstream(side: UpstreamSide): void
  /** Settles a reservation: refunds (or adds) the difference, and counts the credits. */
  finish(entry: KeyEntry, network: string, reserved: number, charged: number, now: number): void
  /**
   * The input-error fee for a request refused before it ran (bad body, key refusals after the key is known).
   * Never beyond what is left of the day's balance: a client at its limit cannot run up a debt with bad input.
   * A promise only when the limit store must ask Redis.
   */
  /** `method`: the call refused, when there was one (else usage records `(invalid)`). */
  inputError(entry: KeyEntry, network: string, code: ErrorCode, method?: string): MaybePromise<number>
  /** A request refused by a limit: one usage row (free) and every call counted, for every transport. */
  limited(r: LimitedRequest): void
  /** A batch's own charge (credits.batchEnvelope), on top of its calls. */
  envelope(entry: KeyEntry, network: string, credits: number, now: number): void
  /**
   * Subscription events written to clients (`events`, default 1), and what they cost together (already taken from
   * the balance), recorded under `label` (`eth_subscription:newHeads`, Solana's `slotNotification` …).
   */
  event(e: ChargedEvents): void
  /** A request refused before a key was known, or by key security: counted, not charged. */
  refused(network: string, code: ErrorCode): void
}

export function createSettle(deps: SettleDeps): Settle {
  const { costs, limits, ledger, metrics, clock } = deps
  const upstreamUsage = deps.upstreamUsage
  const status = (code: ErrorCode) => ERROR_REGISTRY[code].httpStatus

  return {
    call({ entry, network, method, credits, outcome, errorKind, now }) {
      ledger.record(
        {
          accountId: entry.accountId,
          keyId: entry.id,
          network,
          method,
          calls: 1,
          credits,
          errors: outcome === 'ok' ? 0 : 1,
          errorKind,
        },
        now,
      )
      metrics.call(network, method, outcome)
    },
    upstream(u) {
      upstreamUsage?.record(u)
    },
    finish(entry, network, reserved, charged, now) {
      if (charged !== reserved) limits.adjust(entry.accountId, entry.id, charged - reserved, now)
      metrics.credits(network, charged)
    },
    inputError(entry, network, code, method) {
      const now = clock.now()
      const record = (fee: number) => {
        ledger.record(
          {
            accountId: entry.accountId,
            keyId: entry.id,
            network,
            method: method ?? '(invalid)',
            calls: 1,
            credits: fee,
            errors: 1,
            errorKind: `http:${status(code)}`,
          },
          now,
        )
        metrics.credits(network, fee)
        deps.requests?.refused(entry, network, method ?? '(invalid)', `http:${status(code)}`, fee)
        return fee
      }
      const fee = limits.chargeWithin(entry.limits, costs.inputError, now)
      return typeof fee === 'number' ? record(fee) : fee.then(record)
    },
    limited({ entry, network, code, method, methods, now }) {
      const s = status(code)
      ledger.record(
        {
          accountId: entry.accountId,
          keyId: entry.id,
          network,
          method,
          calls: methods.length,
          credits: 0,
          errors: methods.length,
          errorKind: `http:${s}`,
        },
        now,
      )
      for (const m of methods) metrics.call(network, m, `http_${s}`)
      metrics.creditsRefused(network, code)
    },
    envelope(entry, network, credits, now) {
      ledger.record(
        { accountId: entry.accountId, keyId: entry.id, network, method: 'batch', calls: 0, credits, errors: 0 },
        now,
      )
    },
    event({ entry, network, label, credits, now, events = 1 }) {
      ledger.record(
        {
          accountId: entry.accountId,
          keyId: entry.id,
          network,
          method: label,
          calls: events,
          credits,
          errors: 0,
        },
        now,
      )
      metrics.credits(network, credits)
    },
    refused(network, code) {
      metrics.call(network, '(refused)', `http_${status(code)}`)
    },
  }
}
