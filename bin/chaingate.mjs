#!/usr/bin/env node
// Entry for `npx chaingate` / `npm start`: runs the TypeScript sources through tsx (no build step).
import { register } from 'tsx/esm/api'

register()
await import('../src/cli/main.ts')
