/**
 * What every answer of the fuzz suite must satisfy, and the server it runs against (loopback only: the real
 * gateway on port 0, a real anvil, real SQLite).
 */
import { expect } from 'vitest'
import type { TestServer } from '../e2e/helpers/server.ts'
import type { Entry } from './arbitraries.ts'

/** Statuses docs/errors.md lists for an authorized request (no limit is reached with the `dev` plan). */
export const DOCUMENTED_STATUSES = [200, 204, 400, 413]

/** Credits the ledger holds for a key, once written (settling may finish just after the answer is sent). */
export async function ledgerCredits(s: TestServer, keyId: string, expected?: number): Promise<number> {
  // Through kysely, so it reads the same on SQLite and PostgreSQL (CHAINGATE_TEST_DATABASE=postgres).
  const read = async () => {
    await s.parts.ledger.flush()
    const row = await s.parts.database.db
      .selectFrom('usage_hourly')
      .select((eb) => eb.fn.sum<number>('credits').as('c'))
      .where('key_id', '=', keyId)
      .executeTakeFirst()
    return Number(row?.c ?? 0)
  }
  const deadline = Date.now() + 1000
  let value = await read()
  while (expected !== undefined && value !== expected && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5))
    value = await read()
  }
  return value
}

/** A JSON-RPC 2.0 answer object: `jsonrpc`, `id`, and exactly one of `result` / `error` ({code, message}). */
export function expectAnswerShape(
  a: unknown,
): asserts a is { id: unknown; result?: unknown; error?: { code: number; message: string } } {
  expect(a).toBeTypeOf('object')
  expect(a).not.toBeNull()
  const o = a as Record<string, unknown>
  expect(o.jsonrpc).toBe('2.0')
  expect('id' in o).toBe(true)
  expect('result' in o !== 'error' in o).toBe(true)
  if ('error' in o) {
    const e = o.error as Record<string, unknown>
    expect(Number.isInteger(e.code)).toBe(true)
    expect(e.message).toBeTypeOf('string')
    // A crash caught at the edge answers "Internal error": never expected from input.
    expect(e.message).not.toBe('Internal error')
    expect(String(e.message)).not.toMatch(/unavailable|stack|at .*\.ts:\d+/)
  }
}

/** The answers match the entries: one per answered entry, in order, with the right id and outcome. */
export function expectAnswers(entries: Entry[], answers: unknown[]) {
  const answered = entries.filter((e) => e.expect.id !== undefined)
  expect(answers).toHaveLength(answered.length)
  answered.forEach((e, i) => {
    const a = answers[i]
    expectAnswerShape(a)
    expect(a.id, e.text.slice(0, 200)).toEqual(e.expect.id)
    const o = e.expect.outcome
    if (o === 'result') expect(a.error, e.text.slice(0, 200)).toBeUndefined()
    else if (o === 'node-error') expect(a.error, e.text.slice(0, 200)).toBeDefined()
    else expect(a.error?.code, e.text.slice(0, 200)).toBe(o)
  })
}

export const expectedCredits = (entries: Entry[]) => entries.reduce((sum, e) => sum + e.expect.credits, 0)
