/**
 * A worker thread running one of dictum's modules, from the sources (a checkout, through tsx) or from the
 * built package alike. `name` is the module's file name without extension, next to `base` (the caller's
 * `import.meta.url`).
 */
import { Worker } from 'node:worker_threads'

export function startModuleWorker(base: string, name: string): Worker {
  const fromSources = base.endsWith('.ts')
  const file = new URL(`./${name}${fromSources ? '.ts' : '.js'}`, base)
  if (!fromSources) return new Worker(file)
  // From the sources, the worker registers the TypeScript loader first: loader hooks of the process (tsx)
  // do not reach worker threads on Node 20, nor does `--import` in a worker's execArgv.
  return new Worker(
    `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
       .then(({ register }) => { register(); return import(${JSON.stringify(file.href)}) })`,
    { eval: true },
  )
}
