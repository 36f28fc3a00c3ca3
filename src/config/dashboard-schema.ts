/** The `dashboard` section of the config (web dashboard on the gateway listener). See docs/config.md. */
import { z } from 'zod'

export const DashboardConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
  })
  .strict()
