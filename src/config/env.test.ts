import { describe, expect, it } from 'vitest'
import { expandEnv } from './env.ts'
import { ConfigError, parseConfig } from './load.ts'

const env = { NODE_KEY: 'abc123', EMPTY: '', PG_PASS: 's3cret' }

describe('${ENV_VAR} expansion in config values', () => {
  it('replaces references in nested strings, keeps other values and keys', () => {
    const { value, problems } = expandEnv(
      { a: { url: 'https://node.example/v3/${NODE_KEY}', n: 3, list: ['x-${NODE_KEY}', true] }, '${K}': 'k' },
      env,
    )
    expect(problems).toEqual([])
    expect(value).toEqual({ a: { url: 'https://node.example/v3/abc123', n: 3, list: ['x-abc123', true] }, '${K}': 'k' })
  })

  it('uses the fallback when the variable is unset or empty; $${ is a literal ${', () => {
    const { value, problems } = expandEnv({ a: '${MISSING:-dflt}', b: '${EMPTY:-e}', c: 'cost $${NODE_KEY}' }, env)
    expect(problems).toEqual([])
    expect(value).toEqual({ a: 'dflt', b: 'e', c: 'cost ${NODE_KEY}' })
  })

  it('an unset variable without fallback, or a malformed reference, is a problem at the value path', () => {
    const { problems } = expandEnv({ database: { url: 'postgres://u:${PG_PASSWORD}@h/db' }, x: ['${1BAD}'] }, env)
    expect(problems).toEqual([
      {
        path: ['database', 'url'],
        message: 'environment variable PG_PASSWORD is not set (referenced as ${PG_PASSWORD})',
      },
      { path: ['x', 0], message: expect.stringContaining('not a valid ${NAME} reference') },
    ])
  })

  it('parseConfig expands before validating, and reports an unset variable with its path', () => {
    const c = parseConfig({ redis: { url: 'redis://:${CG_TEST_REDIS_PASS:-pw}@127.0.0.1:6379' } })
    expect(c.redis.url).toBe('redis://:pw@127.0.0.1:6379')
    expect(() => parseConfig({ database: { url: 'postgres://u:${CG_TEST_UNSET_VAR}@h/db' } })).toThrow(ConfigError)
    try {
      parseConfig({ database: { url: 'postgres://u:${CG_TEST_UNSET_VAR}@h/db' } })
    } catch (err) {
      expect((err as ConfigError).problems).toContain(
        'database.url: environment variable CG_TEST_UNSET_VAR is not set (referenced as ${CG_TEST_UNSET_VAR})',
      )
    }
  })

  it('an unset variable is one problem: not also the check of the empty value it left', () => {
    const err = (() => {
      try {
        parseConfig({ admin: { token: '${CG_TEST_UNSET_TOKEN}' }, gateway: { port: -1 } })
      } catch (e) {
        return e as ConfigError
      }
    })()
    expect(err?.problems).toEqual([
      'admin.token: environment variable CG_TEST_UNSET_TOKEN is not set (referenced as ${CG_TEST_UNSET_TOKEN})',
      expect.stringMatching(/^gateway\.port: /),
    ])
  })
})
