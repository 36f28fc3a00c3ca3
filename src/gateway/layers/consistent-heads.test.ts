import { describe, expect, it } from 'vitest'
import { contextSlotOf } from './consistent-heads.ts'

describe('contextSlotOf', () => {
  const answer = (text: string) => Buffer.from(text)

  it('reads the context slot of a Solana answer without parsing its value', () => {
    const body = '{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.2.0","slot":341197053},"value":5},"id":1}'
    expect(contextSlotOf(answer(body))).toBe(341197053)
    expect(contextSlotOf(answer('{"result":{"context":{"slot": 7},"value":null}}'))).toBe(7)
  })

  it('has none for an answer without a context, a slot far from it, or a slot that is not a number', () => {
    expect(contextSlotOf(answer('{"jsonrpc":"2.0","result":12,"id":1}'))).toBeUndefined()
    expect(contextSlotOf(answer(`{"result":{"context":{"x":"${'a'.repeat(300)}"},"v":{"slot":3}}}`))).toBeUndefined()
    expect(contextSlotOf(answer('{"result":{"context":{"slot":"9"}}}'))).toBeUndefined()
    expect(contextSlotOf(answer('{"result":{"context":{"slot":'))).toBeUndefined()
  })
})
