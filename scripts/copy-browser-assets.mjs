// `npm run build`, after tsc: copies what tsc leaves out, the browser scripts (src/**/*.browser.js), images (*.svg) and
// stylesheets (src/**/*.css), to the same place under dist/, where the server reads them next to its own modules.
import { cpSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

for (const file of readdirSync('src', { recursive: true, encoding: 'utf8' })) {
  if (/\.(browser\.js|css|svg)$/.test(file)) cpSync(join('src', file), join('dist', file))
}
