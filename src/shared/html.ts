/**
 * A tiny HTML templating helper: `html` escapes every interpolated value unless it is already `SafeHtml`
 * (the result of another `html` call or `raw`). Arrays are joined. This is the only way pages are built, so user
 * input (key names, emails, allowlist entries) can never become markup.
 */

export class SafeHtml {
  readonly value: string
  constructor(value: string) {
    this.value = value
  }
  toString(): string {
    return this.value
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[]

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!
  return new SafeHtml(out)
}

/** Trusted markup (constants only). */
export const raw = (value: string) => new SafeHtml(value)
