/** "Did you mean …?" for misspelled commands and options: the closest known word by edit distance. */

/** Edit distance (insertions, deletions, substitutions, and swapping two neighbours: "strat" → "start" is 1). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  return d[a.length]![b.length]!
}

/**
 * The known word closest to `input`, when it is close enough to be a typo: at most a third of its length
 * (at least 1, at most 3) edits away, or a word that starts with it (`rev` → `revoke`).
 */
export function closest(input: string, known: readonly string[]): string | undefined {
  const word = input.toLowerCase()
  let best: string | undefined
  let bestDistance = Infinity
  for (const k of known) {
    const d = editDistance(word, k)
    if (d < bestDistance) [best, bestDistance] = [k, d]
  }
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)))
  if (best !== undefined && bestDistance <= limit) return best
  const prefixed = known.filter((k) => word.length >= 2 && k.startsWith(word))
  return prefixed.length === 1 ? prefixed[0] : undefined
}

/** " (did you mean X?)" or "". */
export function didYouMean(input: string, known: readonly string[], prefix = ''): string {
  const c = closest(input.replace(/^-+/, ''), known)
  return c === undefined ? '' : ` (did you mean ${prefix}${c}?)`
}
