import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { EngineDefinition } from '../contracts/engine.ts'

/**
 * The installed package's bundle (lib/bundle-loader.ts) hands in Node's `import()`: the bundle is a
 * CommonJS file compiled with `vm.Script`, where `import()` needs a flag on Node 20. Undefined when dictum
 * runs as ES modules (a checkout's sources).
 */
declare const __dictumImport: ((specifier: string) => Promise<Record<string, unknown>>) | undefined

/**
 * Imports a plugin module given as an absolute file path or a package name (the discovery, the engine
 * host): through Node's loader, so that a plugin may be an ES module or CommonJS.
 */
export function importPluginModule(moduleSource: string): Promise<Record<string, unknown>> {
  const specifier = path.isAbsolute(moduleSource) ? pathToFileURL(moduleSource).href : moduleSource
  return typeof __dictumImport === 'function' ? __dictumImport(specifier) : import(specifier)
}

/**
 * Finds the definition with the given id among a module's exports: `default`, `engine` or `engines`, each a
 * single definition or an array (the places the kernel's discovery reads). The kernel has already validated it at boot.
 */
export function findDefinition(moduleExports: Record<string, unknown>, engineId: string): EngineDefinition {
  const candidates = [moduleExports.default, moduleExports.engine, moduleExports.engines].flat()
  const found = candidates.find(
    (candidate): candidate is EngineDefinition =>
      typeof candidate === 'object' && candidate !== null && (candidate as { id?: unknown }).id === engineId,
  )
  if (!found) throw new Error(`the module does not export an engine with id "${engineId}"`)
  return found
}
