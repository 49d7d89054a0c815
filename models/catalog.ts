/**
 * The model catalog: every model dictum can download, where it comes from, how to check it and what must
 * exist once it is installed. The entries themselves live in `catalog-entries.ts`; this file holds the types,
 * the lookup and the well-formedness check that the tests (and a custom catalog) run.
 */
import { errors } from '../kernel/errors.ts'
import { CATALOG_ENTRIES } from './catalog-entries.ts'

export type ModelEngine = 'sherpa-onnx' | 'vosk' | 'vad'

export type ModelFamily =
  | 'nemo-transducer'
  | 'nemo-ctc'
  | 'whisper'
  | 'moonshine'
  | 'sense-voice'
  | 'zipformer-transducer'
  | 'vosk'
  | 'silero-vad'

/** How the download is packed: an archive with one top-level folder, or a single model file. */
export type ArchiveKind = 'tar.bz2' | 'zip' | 'onnx'

/** What is known about one important file of an installed model (checked by install and `verify`). */
export interface FileCheck {
  sizeBytes?: number
  sha256?: string
}

/** File names and settings an engine needs to load a sherpa-onnx model (all paths relative to the folder). */
export interface SherpaOnnxHints {
  /** sherpa-onnx `modelType` / the model config block the files go into. */
  modelType: 'nemo_transducer' | 'transducer' | 'nemo_ctc' | 'whisper' | 'moonshine' | 'sense_voice'
  /** Feature dimension (mel bins) the model was trained with. */
  featureDim: number
  tokens: string
  encoder?: string
  decoder?: string
  joiner?: string
  /** Single-file models (NeMo CTC, SenseVoice). */
  model?: string
  /** Moonshine v1. */
  preprocessor?: string
  uncachedDecoder?: string
  cachedDecoder?: string
  /** Hotword tokenisation unit, for models that take custom words. */
  modelingUnit?: 'bpe'
  /**
   * `bpe.vocab` when the archive ships one. Not every release archive does (the upstream docs say to export
   * it when missing), so it is never a required file; an engine that boosts words must be ready to derive it.
   */
  bpeVocab?: string
}

export interface VoskHints {
  /** `HCLG`: a static graph (`graph/HCLG.fst`); `lookahead`: `graph/HCLr.fst` + `graph/Gr.fst`. */
  graph: 'HCLG' | 'lookahead'
}

export interface VadHints {
  /** The model file. */
  model: string
  /** Sample rates the model accepts. */
  sampleRates: number[]
  /** Upstream Silero VAD version the file corresponds to, when known. */
  sileroVersion: string | null
}

export interface CatalogEntry {
  /** Stable id used by the CLI, the API and config (`[a-z0-9][a-z0-9._-]*`). */
  id: string
  family: ModelFamily
  displayName: string
  /** ISO 639 codes the model transcribes; `[]` for VAD. */
  languages: string[]
  /** Official download URL. */
  url: string
  archive: ArchiveKind
  /** Size of the download in bytes (for display and disk-space estimates; the checksum is the real check). */
  sizeBytes: number
  /** False when `sizeBytes` is a rounded figure from the upstream docs rather than the exact asset size. */
  sizeExact: boolean
  /**
   * SHA-256 of the download, or null where no public source states it. With null, a pull records the digest
   * it computed in the install manifest (trust on first use) and `verify` checks sizes only.
   */
  sha256: string | null
  /** Where `sha256` comes from (or why it is null). */
  checksumSource: string
  /** Files that must exist after install, relative to the model folder. */
  files: string[]
  /** Sizes / digests of some of `files`, where public sources state them. */
  fileChecks?: Record<string, FileCheck>
  /** True when the model can bias recognition towards the dictionary's custom words. */
  customWords: boolean
  engine: ModelEngine
  license: string
  sherpaOnnx?: SherpaOnnxHints
  vosk?: VoskHints
  vad?: VadHints
  notes?: string
}

export type Catalog = readonly CatalogEntry[]

export const KNOWN_FAMILIES: readonly ModelFamily[] = [
  'nemo-transducer',
  'nemo-ctc',
  'whisper',
  'moonshine',
  'sense-voice',
  'zipformer-transducer',
  'vosk',
  'silero-vad',
]

const FAMILY_ENGINE: Record<ModelFamily, ModelEngine> = {
  'nemo-transducer': 'sherpa-onnx',
  'nemo-ctc': 'sherpa-onnx',
  whisper: 'sherpa-onnx',
  moonshine: 'sherpa-onnx',
  'sense-voice': 'sherpa-onnx',
  'zipformer-transducer': 'sherpa-onnx',
  vosk: 'vosk',
  'silero-vad': 'vad',
}

/** Hosts the built-in catalog downloads from (a mirror or `--from` may point anywhere). */
export const OFFICIAL_HOSTS: readonly string[] = ['github.com', 'alphacephei.com']

const ID_PATTERN = /^[a-z0-9][a-z0-9._-]*$/
const SHA256_PATTERN = /^[0-9a-f]{64}$/

/** The built-in catalog. */
export const defaultCatalog: Catalog = CATALOG_ENTRIES

/** The entry with this id, or throws MODEL_NOT_FOUND. */
export function findEntry(catalog: Catalog, id: string): CatalogEntry {
  const entry = catalog.find((candidate) => candidate.id === id)
  if (!entry) throw errors.MODEL_NOT_FOUND(`${id}. Run \`dictum models list\` to see the catalog.`)
  return entry
}

/** The file name the download is known by (last path segment of its URL). */
export function archiveFileName(entry: CatalogEntry): string {
  const last = new URL(entry.url).pathname.split('/').pop()
  return last && last.length > 0 ? decodeURIComponent(last) : `${entry.id}.${entry.archive}`
}

/** True when a relative path stays inside its folder (no absolute paths, no `..`). */
export function isSafeRelativePath(relative: string): boolean {
  if (relative.length === 0 || relative.startsWith('/') || relative.includes('\\')) return false
  return relative.split('/').every((part) => part !== '..' && part !== '')
}

/** Every problem of a catalog (empty when it is well-formed). */
export function catalogProblems(catalog: Catalog): string[] {
  const problems: string[] = []
  const seen = new Set<string>()
  for (const entry of catalog) {
    if (seen.has(entry.id)) problems.push(`duplicate id ${entry.id}`)
    seen.add(entry.id)
    problems.push(...entryProblems(entry).map((problem) => `${entry.id}: ${problem}`))
  }
  return problems
}

function entryProblems(entry: CatalogEntry): string[] {
  const problems: string[] = []
  if (!ID_PATTERN.test(entry.id)) problems.push('id must match [a-z0-9][a-z0-9._-]*')
  if (!KNOWN_FAMILIES.includes(entry.family)) problems.push(`unknown family ${entry.family}`)
  else if (FAMILY_ENGINE[entry.family] !== entry.engine)
    problems.push(`family ${entry.family} is not ${entry.engine}`)
  if (!/^https:\/\//.test(entry.url)) problems.push('url must be https')
  if (!Number.isInteger(entry.sizeBytes) || entry.sizeBytes <= 0) problems.push('sizeBytes must be positive')
  if (entry.sha256 !== null && !SHA256_PATTERN.test(entry.sha256))
    problems.push('sha256 must be 64 hex digits')
  if (entry.files.length === 0) problems.push('files must not be empty')
  for (const file of entry.files) if (!isSafeRelativePath(file)) problems.push(`unsafe file path ${file}`)
  if (entry.archive === 'onnx' && entry.files.length !== 1)
    problems.push('a single-file model lists one file')
  for (const [file, check] of Object.entries(entry.fileChecks ?? {})) {
    if (!entry.files.includes(file)) problems.push(`fileChecks names ${file}, which is not in files`)
    if (check.sha256 !== undefined && !SHA256_PATTERN.test(check.sha256))
      problems.push(`bad sha256 for ${file}`)
  }
  problems.push(...hintProblems(entry))
  return problems
}

function hintProblems(entry: CatalogEntry): string[] {
  if (entry.engine === 'sherpa-onnx') {
    const hints = entry.sherpaOnnx
    if (!hints) return ['sherpa-onnx entries need sherpaOnnx hints']
    const named = [hints.tokens, hints.encoder, hints.decoder, hints.joiner, hints.model]
      .concat([hints.preprocessor, hints.uncachedDecoder, hints.cachedDecoder])
      .filter((name): name is string => name !== undefined)
    return named
      .filter((name) => !entry.files.includes(name))
      .map((name) => `hint file ${name} is not in files`)
  }
  if (entry.engine === 'vad') {
    if (!entry.vad) return ['vad entries need vad hints']
    return entry.files.includes(entry.vad.model) ? [] : [`vad model ${entry.vad.model} is not in files`]
  }
  return entry.vosk ? [] : ['vosk entries need vosk hints']
}
