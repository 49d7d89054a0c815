#!/usr/bin/env node
// dictum's command line. An installed package runs its compiled JavaScript (dist/), with no TypeScript
// loader. A git checkout has the TypeScript sources next to this file and runs them through tsx (a dev
// dependency), so that what runs is always the code as it is, never a stale build.
import { existsSync } from 'node:fs'
import module from 'node:module'

// Node 22.1 and later keep the compiled code of the ES modules loaded from here on in a cache on disk
// (a checkout's sources). The installed package's code is one file with a code cache of its own, on every
// Node (lib/bundle-loader.ts).
module.enableCompileCache?.()

const sources = new URL('../cli/index.ts', import.meta.url)
let main
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api')
  register()
  ;({ main } = await import(sources.href))
} else {
  const { launcherBundle } = await import('../dist/lib/bundle-loader.js')
  ;({ main } = await launcherBundle().exports.modules['cli/index']())
}
const code = await main(process.argv.slice(2))
if (code >= 0) process.exitCode = code
