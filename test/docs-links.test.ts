/**
 * Every link into the docs resolves: relative links and anchors in docs/*.md and README.md, and `docs/<file>.md`
 * (with an optional `#anchor` or `, "Section"`) cited in source strings and comments, deploy/ files included.
 * Anchors are GitHub's: a heading lower-cased, punctuation but `-` and `_` dropped, spaces made `-`, a repeated
 * heading suffixed `-1`, `-2`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '..')

/** GitHub's heading anchors of a markdown file. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!m) continue
    const text = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
    const base = text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  return anchors
}

function files(dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...files(path, keep))
    else if (keep(path)) out.push(path)
  }
  return out
}

const anchorCache = new Map<string, Set<string>>()
/** Why `target` (a path, optionally `#anchor`) does not resolve from `from`'s folder; undefined when it does. */
function problem(fromDir: string, target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined]
  const file = path === '' ? undefined : resolve(fromDir, decodeURIComponent(path))
  if (file !== undefined && !existsSync(file)) return 'no such file'
  if (anchor === undefined || anchor === '' || file === undefined || !file.endsWith('.md')) return undefined
  if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(file, 'utf8')))
  return anchorCache.get(file)!.has(anchor.toLowerCase()) ? undefined : `no heading #${anchor}`
}

describe('docs links', () => {
  it('GitHub anchors: punctuation dropped, spaces to dashes, repeats numbered', () => {
    expect([...anchorsOf('# A `b` (c), d.e\n## Tips & tricks\n## Tips & tricks\n```\n# not\n```')]).toEqual([
      'a-b-c-de',
      'tips--tricks',
      'tips--tricks-1',
    ])
  })

  it('every relative link and anchor in docs/*.md and README.md resolves', () => {
    const broken: string[] = []
    const docs = [join(ROOT, 'README.md'), ...files(join(ROOT, 'docs'), (p) => p.endsWith('.md'))]
    for (const file of docs) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '')
      for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1]!
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http(s), mailto: checked by nobody here
        const why = target.startsWith('#')
          ? problem(dirname(file), `${file.split('/').pop()}${target}`)
          : problem(dirname(file), target)
        if (why) broken.push(`${relative(ROOT, file)}: (${target}): ${why}`)
      }
    }
    expect(broken).toEqual([])
  })

  it('every docs/<file>.md[#anchor] cited in the sources and deploy/ resolves', () => {
    const broken: string[] = []
    const sources = [
      ...files(join(ROOT, 'src'), (p) => /\.(ts|tsx|js|html)$/.test(p)),
      ...files(join(ROOT, 'deploy'), (p) => !p.endsWith('.md')),
      join(ROOT, 'Dockerfile'),
    ]
    for (const file of sources) {
      const text = readFileSync(file, 'utf8')
      // `docs/x.md#anchor`, or `docs/x.md, "Section"`: a heading of that file holding the words (the first words of
      // a long heading), or a bold paragraph title.
      for (const m of text.matchAll(/\bdocs\/([\w.-]+\.md)(?:(#[\w-]+)|,\s+"([^"\n]+)")?/g)) {
        let why = problem(ROOT, `docs/${m[1]}${m[2] ?? ''}`)
        if (why === undefined && m[3] !== undefined) {
          const doc = readFileSync(join(ROOT, 'docs', m[1]!), 'utf8')
          const title = m[3].toLowerCase()
          const titled = doc
            .split('\n')
            .some(
              (l) => (/^#{1,6}\s/.test(l) && l.toLowerCase().includes(title)) || l.toLowerCase().includes(`**${title}`),
            )
          if (!titled) why = 'no heading or bold title with these words'
        }
        if (why) broken.push(`${relative(ROOT, file)}: ${m[0]}: ${why}`)
      }
    }
    expect(broken).toEqual([])
  })
})
