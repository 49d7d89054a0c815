#!/usr/bin/env node
// dictum's command line. An installed package runs its compiled JavaScript (dist/), with no TypeScript
// loader. A git checkout has the TypeScript sources next to this file and runs them through tsx (a dev
// dependency), so that what runs is always the code as it is, never a stale build.
import { existsSync } from 'node:fs'
import module from 'node:module'

// Node 22.1 and later keep the compiled code of the modules loaded from here on in a cache on disk
// (os.tmpdir()/node-compile-cache), so the next start skips compiling them: compiling ~1.2 MB of modules
// is ~60 ms of `dictum serve`'s start on Node 20, which has no such cache (docs/benchmarks.md).
module.enableCompileCache?.()

const sources = new URL('../cli/index.ts', import.meta.url)
let main
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api')
  register()
  ;({ main } = await import(sources.href))
} else {
  ;({ main } = await import('../dist/cli/index.js'))
}
const code = await main(process.argv.slice(2))
if (code >= 0) process.exitCode = code
