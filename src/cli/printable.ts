/**
 * What the CLI prints comes partly from the database and from clients (emails, audit summaries, key names, a
 * dapp's messages waiting for approval): printed raw, an ESC could recolour or rewrite the operator's terminal and
 * a bidirectional override reorder a line. Every line the CLI writes goes through `printable`.
 */

/**
 * Control characters but newline and tab (C0, DEL, C1) and invisible format characters (Unicode category Cf:
 * zero-width ones, bidirectional overrides and isolates, the byte order mark), and the line and paragraph
 * separators.
 */
const UNPRINTABLE = /[\0-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\u2028\u2029]/gu

const asEscapes = (c: string): string => {
  let out = ''
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`
  return out
}

/**
 * `text` with those characters as `\uXXXX` escapes: readable, and the same escape JSON uses, so `--json` output
 * stays valid JSON with the same values (JSON.stringify escapes C0 but prints the others raw).
 */
export const printable = (text: string): string => text.replace(UNPRINTABLE, asEscapes)

/** Writes `text` and a newline, made printable. */
export const printLine = (stream: NodeJS.WritableStream, text: string): void => {
  stream.write(`${printable(text)}\n`)
}
