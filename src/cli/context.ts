/**
 * What every CLI command runs with (built once by ./main.ts, which loads the commands lazily): apart from main.ts so
 * that the commands do not import it back.
 */
import type { Config } from '../config/schema.ts'

export interface CliContext {
  config: Config
  json: boolean
  out(text: string): void
}
