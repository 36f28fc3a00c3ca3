/**
 * The config version `/healthz` and `chaingate reload` show (docs/config.md, "Reloading"): equal in every process
 * running the same file, different when anything in it differs, secrets included (a replica left with an old
 * provider key shows it), yet no help to guess a secret. `/healthz` may be readable by more people than the config:
 * a fast hash over the whole config, as before, let anyone who could read it test guesses of a weak token offline
 * at hash speed. So the version is SHA-256 over the redacted config (what `chaingate config show` prints) and an
 * scrypt digest (RFC 7914) of the values redaction hides, salted with that redacted config: each guess costs an
 * scrypt run (tens of milliseconds, 16 MiB) for this one deployment, and must get every secret of the file right
 * at once. A keyed digest (HMAC) would need a key every replica shares and no outsider can read, which a config
 * does not always have; a random one per process would give replicas different versions.
 */
import { createHash, scrypt, scryptSync } from 'node:crypto'
import type { Config } from '../../config/schema.ts'
import { redactedConfig } from '../../config/show.ts'

/** scrypt cost (Node's default N): ~16 MiB and tens of ms per digest, on start and on a reload that changes it. */
const SCRYPT = { N: 2 ** 14, r: 8, p: 1 }
const DIGEST_BYTES = 32

/** Digests made, by a SHA-256 of their input (so the secrets are not kept twice), the newest last. */
const digests = new Map<string, string>()
const KEEP = 4

interface Parts {
  shown: string
  /** The hidden values and the salt; undefined when the config has no secret (no scrypt run). */
  input: { secrets: string; salt: string; id: string } | undefined
}

/** Without what is fixed per process (listeners, data dir, storage: ./plan.ts), redacted, and its secrets. */
function partsOf(config: Config): Parts {
  const { dataDir: _d, database: _db, redis: _r, gateway, ...rest } = config
  const { host: _h, port: _p, operations, ...gatewayRest } = gateway
  const { listen: _l, ...operationsRest } = operations
  const hidden: string[] = []
  const shown = JSON.stringify(
    redactedConfig({ ...rest, gateway: { ...gatewayRest, operations: operationsRest } }, hidden),
  )
  if (hidden.length === 0) return { shown, input: undefined }
  const secrets = JSON.stringify(hidden)
  const salt = createHash('sha256').update('chaingate config version\n').update(shown).digest('hex')
  return { shown, input: { secrets, salt, id: createHash('sha256').update(salt).update(secrets).digest('hex') } }
}

const remember = (id: string, digest: string): string => {
  digests.delete(id)
  digests.set(id, digest)
  if (digests.size > KEEP) digests.delete(digests.keys().next().value!)
  return digest
}

const versionOf = (shown: string, digest: string): string =>
  createHash('sha256').update(shown).update('\n').update(digest).digest('hex').slice(0, 12)

/** The short version of `config` (12 hex digits). Runs scrypt synchronously unless `prepareConfigVersion` did. */
export function configVersion(config: Config): string {
  const { shown, input } = partsOf(config)
  if (input === undefined) return versionOf(shown, '')
  const digest =
    digests.get(input.id) ??
    remember(input.id, scryptSync(input.secrets, input.salt, DIGEST_BYTES, SCRYPT).toString('hex'))
  return versionOf(shown, digest)
}

/** Runs `config`'s scrypt off the event loop, so a reload's `configVersion` after it does not block calls. */
export async function prepareConfigVersion(config: Config): Promise<void> {
  const { input } = partsOf(config)
  if (input === undefined || digests.has(input.id)) return
  const digest = await new Promise<Buffer>((resolve, reject) =>
    scrypt(input.secrets, input.salt, DIGEST_BYTES, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))),
  )
  remember(input.id, digest.toString('hex'))
}
