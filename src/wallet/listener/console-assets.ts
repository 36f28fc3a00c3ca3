/**
 * The console page's stylesheet and scripts (src/wallet/console), read once when the first listener registers its
 * routes and served from memory. They sit beside the compiled modules in both layouts: under src/ when the sources
 * run (tsx), under dist/ after `npm run build`, which copies them there (scripts/copy-browser-assets.mjs).
 */
import { readFileSync } from 'node:fs'

const TYPES = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' } as const
/** Served at /console/assets/<name>; the scripts import one another by these names. */
const NAMES = ['console.css', 'console.browser.js', 'console-cards.browser.js', 'console-dom.browser.js']

export interface ConsoleAsset {
  name: string
  type: string
  body: string
}

let loaded: ConsoleAsset[] | undefined

export function consoleAssets(): ConsoleAsset[] {
  loaded ??= NAMES.map((name) => ({
    name,
    type: TYPES[name.endsWith('.css') ? 'css' : 'js'],
    body: readFileSync(new URL(`../console/${name}`, import.meta.url), 'utf8'),
  }))
  return loaded
}
