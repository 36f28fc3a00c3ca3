/**
 * The dashboard's only static files (./static: stylesheet, script, icon), read once at start and served from
 * memory under /assets/. Pages work without the script; it only adds copy-to-clipboard buttons. The files sit
 * beside this module in both layouts: under src/ when the sources run (tsx), under dist/ after `npm run build`,
 * which copies them there (scripts/copy-browser-assets.mjs).
 */
import { readFileSync } from 'node:fs'

const read = (name: string) => readFileSync(new URL(`./static/${name}`, import.meta.url), 'utf8')

export const CSS = read('app.css')
export const JS = read('app.browser.js')
/** A small chain-link icon, so browsers do not ask for /favicon.ico. */
export const FAVICON_SVG = read('favicon.svg')
