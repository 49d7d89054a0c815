#!/usr/bin/env node
// dictum's command line. The sources are TypeScript, run through tsx's loader (no build step).
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../kernel/cli/index.ts')
const code = await main(process.argv.slice(2))
if (code >= 0) process.exitCode = code
