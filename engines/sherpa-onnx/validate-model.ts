/**
 * Checks a model folder before any native code sees it. sherpa-onnx kills the process (exit 255 or abort)
 * on missing metadata, a tokens.txt that does not match the model, or broken files with the sync API, so
 * everything that can be checked cheaply from JavaScript is checked here and reported as a catalogue error.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { errors, OnnxFileError, readOnnxFile } from '../../sdk/plugin.ts'
import { type FileRole, type ModelSpec, REQUIRED_ROLES } from './model-spec.ts'
import { checkBpeVocab, readTokens, TokenFileError, type TokenTable } from './tokens.ts'

export interface ValidatedModel {
  tokens: TokenTable
  /** Metadata of every .onnx file, by role. */
  metadata: Partial<Record<FileRole, Record<string, string>>>
  /** Languages the model itself declares (Whisper), else null. */
  declaredLanguages: string[] | null
  /** The folder's own bpe.vocab when it is usable, else null (the engine derives one). */
  bpeVocab: string | null
}

const REQUIRED_METADATA: Partial<Record<ModelSpec['family'], Partial<Record<FileRole, string[]>>>> = {
  'nemo-transducer': { encoder: ['vocab_size', 'subsampling_factor', 'pred_rnn_layers', 'pred_hidden'] },
  'zipformer-transducer': { decoder: ['vocab_size', 'context_size'] },
  'streaming-zipformer-transducer': {
    encoder: ['model_type', 'decode_chunk_len', 'T'],
    decoder: ['vocab_size', 'context_size'],
  },
  'nemo-ctc': { model: ['vocab_size', 'subsampling_factor'] },
  whisper: {
    encoder: 'n_mels n_text_layer n_text_ctx n_text_state n_vocab sot eot blank_id translate transcribe'
      .concat(' is_multilingual no_timestamps no_speech sot_sequence')
      .split(' '),
  },
  'sense-voice': {
    model:
      'vocab_size lfr_window_size lfr_window_shift with_itn without_itn lang_auto lang_zh lang_en lang_ja'
        .concat(' lang_ko lang_yue neg_mean inv_stddev')
        .split(' '),
  },
}

function label(spec: ModelSpec): string {
  return spec.catalogId ?? 'modelDir'
}

function invalid(spec: ModelSpec, problem: string, cause?: unknown) {
  return errors.MODEL_INVALID(`${label(spec)}: ${problem}. Fix: ${spec.fix}`, {
    ...(cause === undefined ? {} : { cause }),
    extra: { fix: spec.fix },
  })
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

async function checkFile(spec: ModelSpec, role: FileRole): Promise<string> {
  const name = spec.files[role]
  if (name === undefined) throw invalid(spec, `no ${role} file found in the folder`)
  const file = path.join(spec.dir, name)
  const info = await stat(file).catch(() => null)
  if (!info?.isFile()) throw invalid(spec, `${name} is missing`)
  if (info.size === 0) throw invalid(spec, `${name} is empty`)
  const check = spec.fileChecks[name]
  if (check?.sizeBytes !== undefined && check.sizeBytes !== info.size) {
    throw invalid(spec, `${name} has ${info.size} bytes, expected ${check.sizeBytes}`)
  }
  if (check?.sha256 !== undefined && (await sha256Of(file)) !== check.sha256) {
    throw invalid(spec, `${name} does not match its checksum`)
  }
  return file
}

function checkMetadata(spec: ModelSpec, metadata: ValidatedModel['metadata']): void {
  for (const [role, keys] of Object.entries(REQUIRED_METADATA[spec.family] ?? {})) {
    const found = metadata[role as FileRole] ?? {}
    const missing = keys.filter((key) => found[key] === undefined)
    if (missing.length > 0) {
      throw invalid(spec, `${spec.files[role as FileRole]} lacks metadata ${missing.join(', ')}`)
    }
  }
}

function numberOf(value: string | undefined): number {
  return value === undefined ? Number.NaN : Number(value)
}

/** tokens.txt must agree with the model's vocabulary, else sherpa-onnx exits or aborts mid-decode. */
function checkVocabulary(spec: ModelSpec, validated: Omit<ValidatedModel, 'bpeVocab'>): void {
  const count = validated.tokens.symbols.length
  const { encoder, decoder } = validated.metadata
  if (spec.family === 'nemo-transducer') {
    const vocab = numberOf(encoder?.vocab_size)
    if (count !== vocab + 1) throw invalid(spec, `tokens.txt has ${count} tokens, the model ${vocab} + blank`)
    if (validated.tokens.symbols[count - 1] !== '<blk>')
      throw invalid(spec, 'tokens.txt does not end with <blk>')
  }
  if (spec.family === 'zipformer-transducer' || spec.family === 'streaming-zipformer-transducer') {
    const vocab = numberOf(decoder?.vocab_size)
    if (count < vocab) throw invalid(spec, `tokens.txt has ${count} tokens, the model ${vocab}`)
  }
  if (spec.family === 'whisper' && encoder?.is_multilingual === '1') {
    const codes = (encoder.all_language_codes ?? '').split(',').filter(Boolean)
    const ids = (encoder.all_language_tokens ?? '').split(',').filter(Boolean)
    if (codes.length === 0 || codes.length !== ids.length)
      throw invalid(spec, 'the language metadata is inconsistent')
  }
}

function declaredLanguages(spec: ModelSpec, metadata: ValidatedModel['metadata']): string[] | null {
  if (spec.family !== 'whisper') return null
  const encoder = metadata.encoder ?? {}
  if (encoder.is_multilingual !== '1') return ['en']
  return (encoder.all_language_codes ?? '').split(',').filter(Boolean)
}

async function usableBpeVocab(spec: ModelSpec, tokens: TokenTable): Promise<string | null> {
  if (spec.files.bpeVocab === undefined) return null
  const file = path.join(spec.dir, spec.files.bpeVocab)
  const text = await readFile(file, 'utf8').catch(() => null)
  return text !== null && checkBpeVocab(text, tokens) === null ? file : null
}

/** Validates the folder of `spec`; throws MODEL_NOT_INSTALLED / MODEL_INVALID with what to do. */
export async function validateModel(spec: ModelSpec): Promise<ValidatedModel> {
  const dir = await stat(spec.dir).catch(() => null)
  if (!dir?.isDirectory()) {
    throw errors.MODEL_NOT_INSTALLED(`${label(spec)}. Fix: ${spec.fix}`, { extra: { fix: spec.fix } })
  }
  const metadata: ValidatedModel['metadata'] = {}
  let tokens: TokenTable | null = null
  for (const role of REQUIRED_ROLES[spec.family]) {
    const file = await checkFile(spec, role)
    if (role === 'tokens') {
      tokens = await readTokens(file).catch((error: unknown) => {
        if (error instanceof TokenFileError) throw invalid(spec, `${spec.files.tokens}: ${error.message}`)
        throw error
      })
      continue
    }
    try {
      metadata[role] = (await readOnnxFile(file)).metadata
    } catch (error) {
      if (error instanceof OnnxFileError) throw invalid(spec, `${spec.files[role]}: ${error.message}`, error)
      throw error
    }
  }
  checkMetadata(spec, metadata)
  const validated = { tokens: tokens!, metadata, declaredLanguages: declaredLanguages(spec, metadata) }
  checkVocabulary(spec, validated)
  return { ...validated, bpeVocab: await usableBpeVocab(spec, tokens!) }
}
