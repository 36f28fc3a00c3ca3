/**
 * The `wallet` section of the config (multichain wallet listener). Owned by the wallet; every key is documented
 * in docs/wallet.md (docs/config.md links there). Change both together.
 */
import { z } from 'zod'

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost'])

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host)
}

export const WalletKeystoreSchema = z
  .object({
    /** Keystore file (encrypted BIP-39 mnemonic), relative to the data dir. */
    file: z.string().min(1).default('wallet-keystore.json'),
    /** Environment variable holding the keystore passphrase. */
    passphraseEnv: z.string().min(1).default('CHAINGATE_WALLET_PASSPHRASE'),
    /**
     * When no keystore exists at start, create one from the well-known anvil test mnemonic
     * (`test test … junk`, funded on the devnets). Those keys are PUBLIC: never use them on a real network.
     */
    useTestMnemonic: z.boolean().default(true),
    /** Accounts (BIP-44 m/44'/60'/0'/0/i, i = 0…n-1) a new keystore starts with. */
    initialAccounts: z.number().int().min(1).max(100).default(5),
    /** scrypt cost N = 2^scryptLogN for new keystores (r = 8, p = 1). 17 ≈ geth's standard. */
    scryptLogN: z.number().int().min(10).max(20).default(17),
  })
  .strict()

export const WalletConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Address the wallet listener binds to. */
    host: z.string().min(1).default('127.0.0.1'),
    /** Port of the wallet listener (WebSocket API and console); 0 picks a free one. */
    port: z.number().int().min(0).max(65535).default(8546),
    /**
     * Also listen on this unix socket (relative to the data dir), created with mode 0600 so other local users
     * cannot connect; dapps use `ws+unix://<path>:/`. Not on Windows. Unset: no socket.
     */
    socketPath: z.string().min(1).max(100).optional(),
    /** Must be true to bind a non-loopback host; the wallet then warns at start. */
    allowNonLoopback: z.boolean().default(false),
    /** Approve every session and signing request without asking (scripted development only; warns loudly). */
    autoApprove: z.boolean().default(false),
    /** How long a pending approval waits for the user before the dapp gets error 4001. */
    approvalTimeoutMs: z.number().int().min(1000).max(86_400_000).default(300_000),
    /** Largest WebSocket message accepted from a dapp; a larger one closes that connection (1009). */
    maxMessageBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(1024 * 1024),
    /** Messages per second one connection may send (burst: twice this); more closes that connection (1008). */
    maxMessagesPerSecond: z.number().int().min(1).max(100_000).default(200),
    /** Requests one connection may have in flight (waiting approvals included); more closes it (1008). */
    maxInFlightPerConnection: z.number().int().min(1).max(100_000).default(256),
    /** How often the server picks up approvals and account changes made by the CLI. */
    pollMs: z.number().int().min(50).max(60_000).default(500),
    keystore: WalletKeystoreSchema.prefault({}),
  })
  .strict()
  .superRefine((w, ctx) => {
    if (!isLoopbackHost(w.host) && !w.allowNonLoopback)
      ctx.addIssue({
        code: 'custom',
        path: ['host'],
        message: 'a non-loopback wallet host needs `wallet.allowNonLoopback: true`',
      })
  })

export type WalletConfig = z.infer<typeof WalletConfigSchema>
