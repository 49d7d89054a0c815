/**
 * Which Vosk model the options select and whether its folder is complete, checked on disk only: a catalog
 * model (`model`, installed under `<modelsDir>/<id>`) or the user's own folder (`modelDir`).
 */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { voskCatalogEntry } from './catalog.ts'
import type { VoskOptions } from './options.ts'

export interface VoskModelSpec {
  /** Catalog id, or null for a modelDir. */
  catalogId: string | null
  dir: string
  displayName: string
  languages: string[]
  /** What the user should do when the folder is missing or incomplete. */
  fix: string
  /** Why the options cannot work at all (unknown id, not a Vosk model). */
  problem: string | null
}

/**
 * Files without which `vosk_model_new` fails on a v2 layout folder: acoustic model, decoder config, feature
 * config (MFCC or filterbank), and one of the two graph layouts.
 */
const CUSTOM_REQUIRED = [
  ['am/final.mdl'],
  ['conf/model.conf'],
  ['conf/mfcc.conf', 'conf/fbank.conf'],
  ['graph/HCLG.fst', 'graph/HCLr.fst'],
]

/** Cheap and synchronous: for the display name and capabilities. */
export function voskModel(options: VoskOptions, modelsDir: string): VoskModelSpec {
  if (options.modelDir !== undefined) {
    return {
      catalogId: null,
      dir: options.modelDir,
      displayName: `Vosk (${path.basename(options.modelDir)})`,
      languages: options.language ? [options.language] : ['*'],
      fix: 'Point speech.engines.vosk.modelDir at an unpacked Vosk model folder.',
      problem: null,
    }
  }
  const entry = voskCatalogEntry(options.model)
  const fix = `dictum models pull ${options.model}`
  const problem = entry
    ? null
    : `model ${options.model} is not a Vosk model of the catalog (run \`dictum models list\`)`
  return {
    catalogId: options.model,
    dir: path.join(modelsDir, options.model),
    displayName: entry && !problem ? entry.displayName : `Vosk (unknown model ${options.model})`,
    languages: entry && !problem ? [...entry.languages] : ['*'],
    fix,
    problem,
  }
}

async function isFile(file: string): Promise<boolean> {
  const info = await stat(file).catch(() => null)
  return info?.isFile() === true && info.size > 0
}

/** Null when the folder holds every required file, else what is missing. */
export async function modelProblem(spec: VoskModelSpec): Promise<string | null> {
  if (spec.problem) return spec.problem
  // Named by id or config key, never by absolute path: the reason reaches HTTP clients (GET /v1/engines).
  const name = spec.catalogId ?? 'the model in speech.engines.vosk.modelDir'
  if (!(await stat(spec.dir).catch(() => null))?.isDirectory()) {
    return spec.catalogId
      ? `${name} is not installed (no folder models/${spec.catalogId})`
      : `${name} is not installed (the folder does not exist)`
  }
  const entry = spec.catalogId ? voskCatalogEntry(spec.catalogId) : undefined
  const groups = entry ? entry.files.map((file) => [file]) : CUSTOM_REQUIRED
  for (const group of groups) {
    const present = await Promise.all(group.map((file) => isFile(path.join(spec.dir, file))))
    if (!present.some(Boolean)) return `${name} is incomplete: ${group.join(' or ')} is missing or empty`
  }
  return null
}
