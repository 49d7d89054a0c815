/**
 * Finds engine and provider plugins: the built-in folders (`engines/<id>/index.ts`, `providers/<id>/index.ts`)
 * and the modules named in config `plugins` (paths or package names). Every definition's metadata is checked
 * here, at boot, so a broken plugin is a clear boot error naming the plugin, never a failure at first request.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { KindGuard } from '@sinclair/typebox'
import { errors } from '../errors/catalogue.ts'
import { satisfies } from '../lib/version-range.ts'
import { PLUGIN_API_VERSION } from './contracts/api-version.ts'
import { type CatalogEntry, catalogProblems } from './contracts/catalog.ts'
import type { EngineDefinition } from './contracts/engine.ts'
import type { ProviderDefinition } from './contracts/provider.ts'
import { importPluginModule } from './engine-runner/find-definition.ts'

export interface Discovered<D> {
  definition: D
  /** What the engine host imports to find the definition again: an absolute file path or a package name. */
  source: string
  builtIn: boolean
}

export interface DiscoveryResult {
  engines: Map<string, Discovered<EngineDefinition>>
  providers: Map<string, Discovered<ProviderDefinition>>
}

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const ID = /^[a-z0-9][a-z0-9-]{0,62}$/

/** Built-in plugin entry files of one folder (`engines` or `providers`). */
export function builtInModules(folder: 'engines' | 'providers', root = REPO_ROOT): string[] {
  const dir = path.join(root, folder)
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      ['index.ts', 'index.js']
        .map((f) => path.join(dir, entry.name, f))
        .filter(existsSync)
        .slice(0, 1),
    )
}

/** Resolves a config `plugins` entry (absolute path or package name) to an importable specifier. */
export function resolvePluginSpecifier(specifier: string, baseDir: string): string {
  if (path.isAbsolute(specifier)) return isFolder(specifier) ? folderEntry(specifier) : specifier
  try {
    return createRequire(path.join(baseDir, 'noop.js')).resolve(specifier)
  } catch {
    return specifier
  }
}

function isFolder(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isDirectory() === true
}

/**
 * A plugin named by its folder (a package not installed, docs/plugins.md): the file an import of the package
 * would load, its package.json's `exports` (or `main`), else index.js. Node imports no folder (the TypeScript
 * loader of a checkout did, so only an installed dictum failed on one).
 */
function folderEntry(dir: string): string {
  const file = path.join(dir, 'package.json')
  const manifest = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { exports?: unknown; main?: unknown })
    : {}
  const main = typeof manifest.main === 'string' ? manifest.main : undefined
  return path.join(dir, exportedEntry(manifest.exports) ?? main ?? 'index.js')
}

/** The file `exports` gives an import of the package itself: a string, or `.`'s import/node/default. */
function exportedEntry(exports: unknown): string | undefined {
  const root = exports !== null && typeof exports === 'object' && '.' in exports ? exports['.'] : exports
  if (typeof root === 'string') return root
  if (root === null || typeof root !== 'object') return undefined
  const conditions = root as Record<string, unknown>
  const file = ['import', 'node', 'default'].map((c) => conditions[c]).find((f) => typeof f === 'string')
  return file as string | undefined
}

/** Imports every plugin module and checks every definition; throws PLUGIN_* errors naming the module. */
export async function discoverPlugins(options: {
  plugins: readonly string[]
  baseDir?: string
  root?: string
}) {
  const result: DiscoveryResult = { engines: new Map(), providers: new Map() }
  const modules = [
    ...builtInModules('engines', options.root).map((source) => ({
      source,
      builtIn: true,
      kind: 'engine' as const,
    })),
    ...builtInModules('providers', options.root).map((source) => ({
      source,
      builtIn: true,
      kind: 'provider' as const,
    })),
    ...options.plugins.map((p) => ({
      source: resolvePluginSpecifier(p, options.baseDir ?? process.cwd()),
      builtIn: false,
      kind: null,
    })),
  ]
  // Imported all at once (their files are read and compiled side by side: ~20 ms less of every start than
  // one after the other), then checked in list order, so the error a start reports does not depend on which
  // import finished first: the first plugin in the list that fails.
  const imports = await Promise.allSettled(modules.map((module) => importPlugin(module.source)))
  for (const [index, module] of modules.entries()) {
    const imported = imports[index] as PromiseSettledResult<Record<string, unknown>>
    if (imported.status === 'rejected') throw imported.reason
    const definitions = collectDefinitions(imported.value, module.source)
    for (const definition of definitions) {
      const kind = (definition.kind as string | undefined) ?? module.kind
      const name = `${module.source}: ${String(definition.id ?? '(no id)')}`
      if (kind === 'engine') add(result.engines, checkEngine(definition, name), module)
      else if (kind === 'provider') add(result.providers, checkProvider(definition, name), module)
      else
        throw errors.PLUGIN_INVALID(
          `${name}: kind must be "engine" or "provider" (use defineEngine/defineProvider)`,
        )
    }
  }
  return result
}

function add<D extends { id: string }>(
  into: Map<string, Discovered<D>>,
  definition: D,
  module: { source: string; builtIn: boolean },
): void {
  const existing = into.get(definition.id)
  if (existing) {
    throw errors.PLUGIN_DUPLICATE(
      `"${definition.id}" is defined by ${existing.source} and by ${module.source}`,
    )
  }
  into.set(definition.id, { definition, source: module.source, builtIn: module.builtIn })
}

async function importPlugin(source: string): Promise<Record<string, unknown>> {
  try {
    return await importPluginModule(source)
  } catch (err) {
    throw errors.PLUGIN_LOAD_FAILED(`${source}: ${(err as Error).message}`, { cause: err })
  }
}

type Loose = Record<string, unknown> & { kind?: unknown; id?: unknown }

function collectDefinitions(exported: Record<string, unknown>, source: string): Loose[] {
  const found: unknown[] = []
  for (const key of ['default', 'engine', 'engines', 'provider', 'providers']) {
    const value = exported[key]
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) if (!found.includes(item)) found.push(item)
  }
  if (found.length === 0) {
    throw errors.PLUGIN_INVALID(
      `${source}: exports no definition (default export, or named "engine" / "provider")`,
    )
  }
  for (const item of found) {
    if (item === null || typeof item !== 'object')
      throw errors.PLUGIN_INVALID(`${source}: an export is not an object`)
  }
  return found as Loose[]
}

function checkCommon(d: Loose, name: string): string[] {
  const problems: string[] = []
  if (typeof d.id !== 'string' || !ID.test(d.id))
    problems.push('id must be lower-case letters, digits and dashes')
  if (typeof d.displayName !== 'string' && typeof d.displayName !== 'function') {
    problems.push('displayName must be a string or a function')
  }
  if (!KindGuard.IsSchema(d.optionsSchema)) problems.push('optionsSchema must be a TypeBox schema')
  if (typeof d.capabilities !== 'function') problems.push('capabilities must be a function')
  if (typeof d.create !== 'function') problems.push('create must be a function')
  if (
    d.apiRange !== undefined &&
    (typeof d.apiRange !== 'string' || satisfies('0.0.0', d.apiRange) === null)
  ) {
    problems.push(`apiRange must be a version range such as "^${PLUGIN_API_VERSION}"`)
  }
  if (problems.length > 0) throw errors.PLUGIN_INVALID(`${name}: ${problems.join('; ')}`)
  checkApiRange(d, name)
  return problems
}

/** A plugin written for another plugin API is refused at start, not at its first call. */
function checkApiRange(d: Loose, name: string): void {
  if (d.apiRange === undefined || satisfies(PLUGIN_API_VERSION, d.apiRange as string)) return
  throw errors.PLUGIN_API_MISMATCH(
    `${name} was written for plugin API ${d.apiRange as string}; this dictum's plugin API is ${PLUGIN_API_VERSION}.`,
  )
}

function checkEngine(d: Loose, name: string): EngineDefinition {
  checkCommon(d, name)
  if (d.isolation !== undefined && d.isolation !== 'process' && d.isolation !== 'none') {
    throw errors.PLUGIN_INVALID(`${name}: isolation must be "process" or "none"`)
  }
  if (d.probe !== undefined && typeof d.probe !== 'function') {
    throw errors.PLUGIN_INVALID(`${name}: probe must be a function`)
  }
  if (d.pronunciationDictionary !== undefined && typeof d.pronunciationDictionary !== 'function') {
    throw errors.PLUGIN_INVALID(`${name}: pronunciationDictionary must be a function`)
  }
  const estimate = d.memoryEstimateMb
  if (
    estimate !== undefined &&
    typeof estimate !== 'function' &&
    !(typeof estimate === 'number' && estimate > 0)
  ) {
    throw errors.PLUGIN_INVALID(`${name}: memoryEstimateMb must be a positive number or a function`)
  }
  if (d.catalog !== undefined) checkCatalog(d.catalog, d.id as string, name)
  return d as unknown as EngineDefinition
}

/** An engine's catalog models: well-formed entries, each naming this engine (ids across engines: models/catalog.ts). */
function checkCatalog(catalog: unknown, engineId: string, name: string): void {
  if (!Array.isArray(catalog) || !catalog.every((entry) => entry !== null && typeof entry === 'object')) {
    throw errors.PLUGIN_INVALID(`${name}: catalog must be a list of catalog entries`)
  }
  const entries = catalog as CatalogEntry[]
  const problems = [
    ...catalogProblems(entries),
    ...entries
      .filter((entry) => entry.engine !== engineId)
      .map((entry) => `${entry.id}: engine must be "${engineId}", not "${entry.engine}"`),
  ]
  if (problems.length > 0) throw errors.PLUGIN_INVALID(`${name}: catalog: ${problems.join('; ')}`)
}

function checkProvider(d: Loose, name: string): ProviderDefinition {
  checkCommon(d, name)
  if (d.id === 'none') throw errors.PLUGIN_INVALID(`${name}: "none" is reserved (it means no provider)`)
  return d as unknown as ProviderDefinition
}
