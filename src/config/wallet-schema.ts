/** The `wallet` section of the config (multichain wallet listener). Owned by the wallet; see docs/config.md. */
import { z } from 'zod'

export const WalletConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
  })
  .strict()
