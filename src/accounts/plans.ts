/** The plans of the config as a list, as `chaingate plans --json` prints it and `GET /admin/v1/plans` answers it. */
import type { PlanConfig } from '../config/schema.ts'

export type PlanView = PlanConfig & { name: string }

export const planList = (plans: Record<string, PlanConfig>): PlanView[] =>
  Object.entries(plans).map(([name, p]) => ({ name, ...p }))
