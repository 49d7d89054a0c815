/**
 * Which model the options select, and where its files are: a catalog model (`model`, installed under
 * `<modelsDir>/<id>`) or the user's own folder (`modelDir` + `family`, file names detected or given).
 */
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import type { FileCheck } from '../../sdk/plugin.ts'
import { sherpaCatalogEntry } from './catalog.ts'
import type { SherpaFamily, SherpaOnnxOptions } from './options.ts'

export type FileRole =
  | 'encoder'
  | 'decoder'
  | 'joiner'
  | 'tokens'
  | 'model'
  | 'preprocessor'
  | 'uncachedDecoder'
  | 'cachedDecoder'

/** File names (relative to the model folder) by role; `bpeVocab` only when the folder has one. */
export type ModelFiles = Partial<Record<FileRole | 'bpeVocab', string>>

/** What the cheap, synchronous parts of the engine (display name, capabilities) know about the model. */
export interface ModelDescription {
  catalogId: string | null
  displayName: string
  /** null when the options do not say (custom folder without `family`, unknown catalog id). */
  family: SherpaFamily | null
  languages: string[]
  /** Why the options cannot work, when they cannot (unknown id, not a sherpa-onnx model, no family). */
  problem: string | null
}

export interface ModelSpec extends ModelDescription {
  family: SherpaFamily
  dir: string
  files: ModelFiles
  featureDim: number
  fileChecks: Record<string, FileCheck>
  /** What the user should do when the folder or a file is missing. */
  fix: string
}

/** Roles every family needs. */
export const REQUIRED_ROLES: Record<SherpaFamily, FileRole[]> = {
  'nemo-transducer': ['encoder', 'decoder', 'joiner', 'tokens'],
  'zipformer-transducer': ['encoder', 'decoder', 'joiner', 'tokens'],
  'streaming-zipformer-transducer': ['encoder', 'decoder', 'joiner', 'tokens'],
  'nemo-ctc': ['model', 'tokens'],
  'sense-voice': ['model', 'tokens'],
  whisper: ['encoder', 'decoder', 'tokens'],
  moonshine: ['preprocessor', 'encoder', 'uncachedDecoder', 'cachedDecoder', 'tokens'],
}

/** How files of a custom folder are recognised when `files` does not name them. */
const FILE_PATTERNS: Record<FileRole | 'bpeVocab', RegExp> = {
  encoder: /^(?!.*uncached)(.*-)?encoder?[^/]*\.onnx$/,
  decoder: /^(.*-)?decoder[^/]*\.onnx$/,
  joiner: /^joiner[^/]*\.onnx$/,
  tokens: /^(.*-)?tokens\.txt$/,
  model: /^model[^/]*\.onnx$/,
  preprocessor: /^preprocess[^/]*\.onnx$/,
  uncachedDecoder: /^uncached_decode[^/]*\.onnx$/,
  cachedDecoder: /^cached_decode[^/]*\.onnx$/,
  bpeVocab: /^bpe\.vocab$/,
}

/** Cheap description used by `displayName` and `capabilities` (no file system access). */
export function describeModel(options: SherpaOnnxOptions): ModelDescription {
  if (options.modelDir !== undefined) {
    const family = options.family ?? null
    return {
      catalogId: null,
      displayName: `Custom ${family ?? 'sherpa-onnx'} model (${options.modelDir})`,
      family,
      languages: options.languages ?? ['*'],
      problem: family ? null : 'speech.engines.sherpa-onnx.family is required with modelDir',
    }
  }
  const entry = sherpaCatalogEntry(options.model)
  if (!entry) {
    return {
      catalogId: options.model,
      displayName: `Unknown model ${options.model}`,
      family: null,
      languages: ['*'],
      problem: `model ${options.model} is not a sherpa-onnx model of the catalog (run \`dictum models list\`)`,
    }
  }
  return {
    catalogId: entry.id,
    displayName: entry.displayName,
    family: entry.family,
    languages: entry.languages,
    problem: null,
  }
}

/** Picks the file a role uses in a custom folder: the only match, else an int8 one, else the first by name. */
function pickFile(names: string[], role: FileRole | 'bpeVocab'): string | undefined {
  const matches = names.filter((name) => FILE_PATTERNS[role].test(name)).sort()
  return matches.find((name) => name.includes('.int8.')) ?? matches[0]
}

/** Full model spec, with file names; reads the folder listing for custom models. */
export async function resolveModel(options: SherpaOnnxOptions, modelsDir: string): Promise<ModelSpec> {
  const description = describeModel(options)
  if (description.problem || !description.family) throw new Error(description.problem ?? 'no model family')
  if (options.modelDir !== undefined) {
    const dir = path.resolve(options.modelDir)
    const names = await readdir(dir).catch(() => [] as string[])
    const files: ModelFiles = {}
    for (const role of [...REQUIRED_ROLES[description.family], 'bpeVocab'] as const) {
      const named = options.files?.[role] ?? pickFile(names, role)
      if (named !== undefined) files[role] = named
    }
    return {
      ...description,
      family: description.family,
      dir,
      files,
      featureDim: 80,
      fileChecks: {},
      fix: `Check speech.engines.sherpa-onnx.modelDir and files (the ${description.family} model folder).`,
    }
  }
  const entry = sherpaCatalogEntry(options.model)!
  const hints = entry.hints
  const files: ModelFiles = {}
  for (const role of REQUIRED_ROLES[description.family]) {
    const named = options.files?.[role] ?? hints[role]
    if (named !== undefined) files[role] = named
  }
  const bpeVocab = options.files?.bpeVocab ?? hints.bpeVocab
  if (bpeVocab !== undefined) files.bpeVocab = bpeVocab
  return {
    ...description,
    family: description.family,
    dir: path.join(modelsDir, entry.id),
    files,
    featureDim: hints.featureDim,
    fileChecks: entry.fileChecks ?? {},
    fix: `dictum models pull ${entry.id}`,
  }
}
