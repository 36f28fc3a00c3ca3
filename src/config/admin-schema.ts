/** The `admin` section of the config: the operators' HTTP API (docs/admin-api.md). */
import { z } from 'zod'

export const AdminConfigSchema = z
  .object({
    /**
     * Bearer token of `/admin/v1/…`; null (the default, unless CHAINGATE_ADMIN_TOKEN is set): the API is off and
     * its paths answer 404 like any unknown path. `${ENV}` expansion applies, like every config string.
     */
    token: z
      .string()
      .min(16, 'at least 16 characters (from the config or CHAINGATE_ADMIN_TOKEN)')
      .nullable()
      // prefault: a value from the environment is validated like one from the file.
      .prefault(() => process.env.CHAINGATE_ADMIN_TOKEN || null),
    /**
     * Days the admin audit (API, CLI and dashboard changes) is kept; older rows are pruned hourly by every process,
     * in bounded runs (src/audit/retention.ts).
     */
    auditRetentionDays: z.number().int().min(1).max(36_500).default(90),
  })
  .strict()
