import { expect, test } from 'vitest'
import { createSlots } from './slots.ts'

test('slots per id up to the cap; a release frees one once, however often it is called', () => {
  const slots = createSlots()
  const a1 = slots.take('a', 2)
  const a2 = slots.take('a', 2)
  expect(a1 && a2).toBeTypeOf('function')
  expect(slots.take('a', 2)).toBeUndefined()
  expect(slots.take('b', 2)).toBeTypeOf('function')
  a1!()
  a1!()
  expect(slots.held('a')).toBe(1)
  expect(slots.take('a', 2)).toBeTypeOf('function')
  expect(slots.take('a', 2)).toBeUndefined()
  expect(slots.size).toBe(2)
})

test('an id is forgotten with its last slot', () => {
  const slots = createSlots()
  const r = slots.take('x', 1)!
  r()
  expect(slots.size).toBe(0)
  expect(slots.held('x')).toBe(0)
})
