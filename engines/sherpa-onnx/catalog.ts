/**
 * The sherpa-onnx speech models dictum can download (all from the k2-fsa/sherpa-onnx `asr-models` release),
 * with what the engine needs to load each one (`hints`). They reach the model manager through the engine
 * definition's `catalog`.
 *
 * Where the facts come from (see docs/models.md for the full story):
 * - Archive names and the files inside them: the sherpa-onnx docs (k2-fsa/sherpa `docs/source/onnx/...`) and the
 *   export workflows of k2-fsa/sherpa-onnx (`.github/workflows/export-*.yaml`, `scripts/`), which pack each
 *   folder with `tar cjf <name>.tar.bz2 <name>` and upload it to the `asr-models` release.
 * - Archive sizes and SHA-256: upstream publishes them only as release metadata and a `checksum.txt` release
 *   asset, which this project cannot fetch. A digest is pinned here only where at least two independent public
 *   projects state the same value (several of them say they took it from that `checksum.txt` or from the
 *   release asset's digest, or re-hashed the download). Everything else is `sha256: null` (trust on first use).
 */

import type { CatalogEntry, FileCheck } from '../../sdk/plugin.ts'
import { FAMILIES, type SherpaFamily } from './options.ts'

/** File names and settings the engine needs to load a catalog model (all paths relative to its folder). */
export interface SherpaOnnxHints {
  /**
   * sherpa-onnx `modelType` / the model config block the files go into. `online_transducer`: a streaming
   * transducer for sherpa-onnx's OnlineRecognizer (which reads the exact type from the encoder's metadata).
   */
  modelType:
    | 'nemo_transducer'
    | 'transducer'
    | 'online_transducer'
    | 'nemo_ctc'
    | 'whisper'
    | 'moonshine'
    | 'sense_voice'
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

export interface SherpaCatalogEntry extends CatalogEntry<SherpaOnnxHints> {
  engine: 'sherpa-onnx'
  family: SherpaFamily
  hints: SherpaOnnxHints
}

const SHERPA_RELEASE = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models'
const TWO_SOURCES =
  'stated identically by several independent public projects (sherpa-onnx asr-models release)'
const NO_SOURCE =
  'no public source states it: the first pull records the digest it computed (trust on first use)'

/** Whisper tiny/base/small know the first 99 languages of openai/whisper `tokenizer.py` (all but `yue`). */
const WHISPER_LANGUAGES = (
  'en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la ' +
  'mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be ' +
  'tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su'
).split(' ')

const PARAKEET_V3_LANGUAGES =
  'bg hr cs da nl en et fi fr de el hu it lv lt mt pl pt ro sk sl es sv ru uk'.split(' ')

interface ArchiveFacts {
  id: string
  displayName: string
  name: string
  sizeBytes: number
  sha256: string | null
  languages: string[]
  fileChecks?: Record<string, FileCheck>
}

function sherpaArchive(facts: ArchiveFacts) {
  return {
    id: facts.id,
    displayName: facts.displayName,
    languages: facts.languages,
    url: `${SHERPA_RELEASE}/${facts.name}.tar.bz2`,
    archive: 'tar.bz2' as const,
    sizeBytes: facts.sizeBytes,
    sizeExact: true,
    sha256: facts.sha256,
    checksumSource: facts.sha256 === null ? NO_SOURCE : TWO_SOURCES,
    engine: 'sherpa-onnx' as const,
    ...(facts.fileChecks ? { fileChecks: facts.fileChecks } : {}),
  }
}

const TRANSDUCER_INT8 = ['encoder.int8.onnx', 'decoder.int8.onnx', 'joiner.int8.onnx', 'tokens.txt']

function nemoTransducer(facts: ArchiveFacts, featureDim: number): SherpaCatalogEntry {
  return {
    ...sherpaArchive(facts),
    family: 'nemo-transducer',
    files: TRANSDUCER_INT8,
    customWords: true,
    license: 'CC-BY-4.0 (NVIDIA)',
    hints: {
      modelType: 'nemo_transducer',
      featureDim,
      encoder: 'encoder.int8.onnx',
      decoder: 'decoder.int8.onnx',
      joiner: 'joiner.int8.onnx',
      tokens: 'tokens.txt',
      modelingUnit: 'bpe',
      bpeVocab: 'bpe.vocab',
    },
  }
}

function whisper(size: string, sizeBytes: number, sha256: string): SherpaCatalogEntry {
  const english = size.endsWith('.en')
  const files = [`${size}-encoder.int8.onnx`, `${size}-decoder.int8.onnx`, `${size}-tokens.txt`]
  const label = `${size.replace('.en', '')[0]?.toUpperCase()}${size.replace('.en', '').slice(1)}`
  return {
    ...sherpaArchive({
      id: `whisper-${size}`,
      displayName: `Whisper ${label}${english ? ' (English)' : ' (multilingual)'}, int8`,
      name: `sherpa-onnx-whisper-${size}`,
      sizeBytes,
      sha256,
      languages: english ? ['en'] : WHISPER_LANGUAGES,
    }),
    family: 'whisper',
    files,
    customWords: false,
    license: 'MIT (OpenAI Whisper)',
    notes: 'The archive also holds the fp32 encoder and decoder; the int8 pair is what the engine loads.',
    hints: {
      modelType: 'whisper',
      featureDim: 80,
      encoder: files[0],
      decoder: files[1],
      tokens: files[2] as string,
    },
  }
}

/** Streaming zipformer transducers (icefall exports): int8 encoder and joiner, fp32 decoder, as upstream runs them. */
function streamingZipformer(
  facts: ArchiveFacts & { sizeExact: boolean },
  suffix: string,
): SherpaCatalogEntry {
  const files = [
    `encoder-${suffix}.int8.onnx`,
    `decoder-${suffix}.onnx`,
    `joiner-${suffix}.int8.onnx`,
    'tokens.txt',
  ]
  return {
    ...sherpaArchive(facts),
    sizeExact: facts.sizeExact,
    family: 'streaming-zipformer-transducer',
    files,
    customWords: false,
    license: 'Apache-2.0 (k2-fsa icefall)',
    notes:
      'Streaming: decodes audio as it arrives (live partials). The archive also holds fp32 files; the int8 ones are what the engine loads.',
    hints: {
      modelType: 'online_transducer',
      featureDim: 80,
      encoder: files[0],
      decoder: files[1],
      joiner: files[2],
      tokens: 'tokens.txt',
    },
  }
}

const MOONSHINE_FILES = [
  'preprocess.onnx',
  'encode.int8.onnx',
  'uncached_decode.int8.onnx',
  'cached_decode.int8.onnx',
  'tokens.txt',
]

function moonshine(size: 'tiny' | 'base', sizeBytes: number, sha256: string): SherpaCatalogEntry {
  return {
    ...sherpaArchive({
      id: `moonshine-${size}-en`,
      displayName: `Moonshine ${size === 'tiny' ? 'Tiny' : 'Base'} (English), int8`,
      name: `sherpa-onnx-moonshine-${size}-en-int8`,
      sizeBytes,
      sha256,
      languages: ['en'],
    }),
    family: 'moonshine',
    files: MOONSHINE_FILES,
    customWords: false,
    license: 'MIT (Useful Sensors)',
    hints: {
      modelType: 'moonshine',
      featureDim: 80,
      preprocessor: 'preprocess.onnx',
      encoder: 'encode.int8.onnx',
      uncachedDecoder: 'uncached_decode.int8.onnx',
      cachedDecoder: 'cached_decode.int8.onnx',
      tokens: 'tokens.txt',
    },
  }
}

export const SHERPA_ONNX_CATALOG: readonly SherpaCatalogEntry[] = [
  nemoTransducer(
    {
      id: 'parakeet-tdt-0.6b-v2',
      displayName: 'NeMo Parakeet TDT 0.6B v2 (English), int8',
      name: 'sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8',
      sizeBytes: 482_468_385,
      sha256: '157c157bc51155e03e37d2466522a3a737dd9c72bb25f36eb18912964161e1ad',
      languages: ['en'],
    },
    128,
  ),
  nemoTransducer(
    {
      id: 'parakeet-tdt-0.6b-v3',
      displayName: 'NeMo Parakeet TDT 0.6B v3 (25 European languages), int8',
      name: 'sherpa-onnx-nemo-parakeet-tdt-0.6b-v3-int8',
      sizeBytes: 487_170_055,
      sha256: '5793d0fd397c5778d2cf2126994d58e9d56b1be7c04d13c7a15bb1b4eafb16bf',
      languages: PARAKEET_V3_LANGUAGES,
    },
    128,
  ),
  nemoTransducer(
    {
      id: 'parakeet-tdt-110m-en',
      displayName: 'NeMo Parakeet TDT-CTC 110M (English), transducer branch, int8',
      name: 'sherpa-onnx-nemo-parakeet_tdt_transducer_110m-en-36000-int8',
      sizeBytes: 108_035_095,
      sha256: 'f628312e9fdf8686374cb01a69425c41732529d540860311f16f37cbc32cfe9b',
      languages: ['en'],
      fileChecks: {
        'encoder.int8.onnx': { sizeBytes: 131_113_202 },
        'decoder.int8.onnx': { sizeBytes: 3_955_863 },
        'joiner.int8.onnx': { sizeBytes: 1_411_403 },
        'tokens.txt': { sizeBytes: 9_953 },
      },
    },
    80,
  ),
  {
    ...sherpaArchive({
      id: 'parakeet-tdt-ctc-110m-en',
      displayName: 'NeMo Parakeet TDT-CTC 110M (English), CTC branch, int8',
      name: 'sherpa-onnx-nemo-parakeet_tdt_ctc_110m-en-36000-int8',
      sizeBytes: 104_337_827,
      sha256: '17f945007b52ccd8b7200ffc7c5652e9e8e961dfdf479cefcabd06cf5703630b',
      languages: ['en'],
    }),
    family: 'nemo-ctc',
    files: ['model.int8.onnx', 'tokens.txt'],
    customWords: false,
    license: 'CC-BY-4.0 (NVIDIA)',
    hints: { modelType: 'nemo_ctc', featureDim: 80, model: 'model.int8.onnx', tokens: 'tokens.txt' },
  },
  whisper('tiny.en', 118_071_777, '2bd6cf965c8bb3e068ef9fa2191387ee63a9dfa2a4e37582a8109641c20005dd'),
  whisper('base.en', 208_576_005, '475bc7052ce299c007f6d5d5407ba8601f819a2867f6eecee510ed17df581542'),
  whisper('small.en', 635_693_775, '0cdba2b8aaab69e04847f3427cc9709574112e67913a1a84b7fec3a8729faa9a'),
  whisper('tiny', 116_204_861, 'c46116994e539aa165266d96b325252728429c12535eb9d8b6a2b10f129e66b1'),
  whisper('base', 207_557_382, '911b2083efd7c0dca2ac3b358b75222660dc09fb716d64fbfc417ba6c99ff3de'),
  whisper('small', 639_387_718, '486a46afbb7ba798507190ffe02fea2dd726049af212e774537efac6afb210a6'),
  moonshine('tiny', 107_600_538, 'd5fe6ec4334fef36255b2a4010412cad4c007e33103fec62fb5d17cad88086f2'),
  moonshine('base', 250_807_309, '21870cecaa2e44e4e2bf63e02d1072bed183ccd10284871353bd9d24dad14e5e'),
  {
    ...sherpaArchive({
      id: 'sense-voice-small',
      displayName: 'SenseVoice Small (zh, en, ja, ko, yue), int8',
      name: 'sherpa-onnx-sense-voice-zh-en-ja-ko-yue-int8-2024-07-17',
      sizeBytes: 163_002_883,
      sha256: '7d1efa2138a65b0b488df37f8b89e3d91a60676e416f515b952358d83dfd347e',
      languages: ['zh', 'en', 'ja', 'ko', 'yue'],
    }),
    family: 'sense-voice',
    files: ['model.int8.onnx', 'tokens.txt'],
    customWords: false,
    license: 'FunASR model license (FunAudioLLM SenseVoice)',
    hints: { modelType: 'sense_voice', featureDim: 80, model: 'model.int8.onnx', tokens: 'tokens.txt' },
  },
  {
    ...sherpaArchive({
      id: 'zipformer-small-en',
      displayName: 'Zipformer small transducer (English, LibriSpeech), non-streaming',
      name: 'sherpa-onnx-zipformer-small-en-2023-06-26',
      sizeBytes: 112_232_184,
      sha256: null,
      languages: ['en'],
    }),
    family: 'zipformer-transducer',
    files: [
      'encoder-epoch-99-avg-1.int8.onnx',
      'decoder-epoch-99-avg-1.onnx',
      'joiner-epoch-99-avg-1.int8.onnx',
      'tokens.txt',
    ],
    customWords: true,
    license: 'Apache-2.0 (k2-fsa icefall)',
    notes: 'Decoder in fp32 with an int8 encoder and joiner, as the upstream docs run it.',
    hints: {
      modelType: 'transducer',
      featureDim: 80,
      encoder: 'encoder-epoch-99-avg-1.int8.onnx',
      decoder: 'decoder-epoch-99-avg-1.onnx',
      joiner: 'joiner-epoch-99-avg-1.int8.onnx',
      tokens: 'tokens.txt',
      modelingUnit: 'bpe',
      bpeVocab: 'bpe.vocab',
    },
  },
  // Size: one public project states the exact byte count, others ~296 MiB; no digest is stated twice.
  streamingZipformer(
    {
      id: 'streaming-zipformer-en',
      displayName: 'Zipformer transducer (English, LibriSpeech), streaming',
      name: 'sherpa-onnx-streaming-zipformer-en-2023-06-26',
      sizeBytes: 310_414_022,
      sizeExact: false,
      sha256: null,
      languages: ['en'],
    },
    'epoch-99-avg-1-chunk-16-left-128',
  ),
  // Digest and exact size: stated identically by two independent public projects (one checks it at runtime).
  streamingZipformer(
    {
      id: 'streaming-zipformer-small-zh-en',
      displayName: 'Zipformer small transducer (Chinese and English), streaming',
      name: 'sherpa-onnx-streaming-zipformer-small-bilingual-zh-en-2023-02-16',
      sizeBytes: 458_187_351,
      sizeExact: true,
      sha256: '2b7c63322b32e5e0f2526043a1103366119ca58dd615cd7105a37c01db9553d7',
      languages: ['zh', 'en'],
    },
    'epoch-99-avg-1',
  ),
]

/** The entry with this id, when it is one of this engine's. */
export function sherpaCatalogEntry(id: string): SherpaCatalogEntry | undefined {
  return SHERPA_ONNX_CATALOG.find((entry) => entry.id === id)
}

/** Problems of an entry's sherpa-onnx specifics: a known family, and every file the hints name is installed. */
export function sherpaEntryProblems(entry: CatalogEntry): string[] {
  const problems: string[] = []
  if (!(FAMILIES as readonly string[]).includes(entry.family))
    problems.push(`family ${entry.family} is not sherpa-onnx`)
  const hints = entry.hints as SherpaOnnxHints | undefined
  if (!hints) return [...problems, 'sherpa-onnx entries need hints']
  const named = [hints.tokens, hints.encoder, hints.decoder, hints.joiner, hints.model]
    .concat([hints.preprocessor, hints.uncachedDecoder, hints.cachedDecoder])
    .filter((name): name is string => name !== undefined)
  for (const name of named)
    if (!entry.files.includes(name)) problems.push(`hint file ${name} is not in files`)
  return problems
}
