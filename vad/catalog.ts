/**
 * The Silero VAD models dictum can download. The VAD is no engine (it runs in the API process, before any
 * engine), so its entries carry `engine: 'vad'` and join the engines' catalogs in the model manager
 * (models/catalog.ts). The digests of the two snakers4 files were computed here from the snakers4/silero-vad
 * git history (`v5.0:files/silero_vad.onnx`, and commit bfdc019 `src/silero_vad/data/silero_vad.onnx`, which
 * is byte-identical to assets/silero-vad/silero_vad.onnx, which dictum ships); the sherpa-onnx export's is
 * stated by several independent public projects (docs/models.md).
 */
import type { CatalogEntry } from '../kernel/contracts/catalog.ts'

export interface VadHints {
  /** The model file. */
  model: string
  /** Sample rates the model accepts. */
  sampleRates: number[]
  /** Upstream Silero VAD version the file corresponds to, when known. */
  sileroVersion: string | null
}

export interface VadCatalogEntry extends CatalogEntry<VadHints> {
  engine: 'vad'
  family: 'silero-vad'
  hints: VadHints
}

const SHERPA_ONNX_RELEASE = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models'

export const VAD_CATALOG: readonly VadCatalogEntry[] = [
  {
    id: 'silero-vad',
    family: 'silero-vad',
    displayName: 'Silero VAD (sherpa-onnx export, 16 kHz)',
    languages: [],
    url: `${SHERPA_ONNX_RELEASE}/silero_vad.onnx`,
    archive: 'onnx',
    sizeBytes: 643_854,
    sizeExact: true,
    sha256: '9e2449e1087496d8d4caba907f23e0bd3f78d91fa552479bb9c23ac09cbb1fd6',
    checksumSource:
      'stated identically by several independent public projects (sherpa-onnx asr-models release)',
    files: ['silero_vad.onnx'],
    customWords: false,
    engine: 'vad',
    license: 'MIT (Silero)',
    notes: 'Exported and maintained by k2-fsa (upstream docs: 629 KB, 16 kHz only). Not the snakers4 file.',
    hints: { model: 'silero_vad.onnx', sampleRates: [16000], sileroVersion: null },
  },
  {
    id: 'silero-vad-v5',
    family: 'silero-vad',
    displayName: 'Silero VAD v5 (upstream file)',
    languages: [],
    url: `${SHERPA_ONNX_RELEASE}/silero_vad_v5.onnx`,
    archive: 'onnx',
    sizeBytes: 2_313_101,
    sizeExact: true,
    sha256: '6b99cbfd39246b6706f98ec13c7c50c6b299181f2474fa05cbc8046acc274396',
    checksumSource:
      'sha256 of snakers4/silero-vad tag v5.0 files/silero_vad.onnx, computed from its git history',
    files: ['silero_vad.onnx'],
    customWords: false,
    engine: 'vad',
    license: 'MIT (Silero)',
    hints: { model: 'silero_vad.onnx', sampleRates: [8000, 16000], sileroVersion: '5.0' },
  },
  {
    id: 'silero-vad-v6.2',
    family: 'silero-vad',
    displayName: 'Silero VAD v6.2 (upstream file)',
    languages: [],
    url: 'https://github.com/snakers4/silero-vad/raw/bfdc0193023f121ea5b3cc7b176dbed570a68a59/src/silero_vad/data/silero_vad.onnx',
    archive: 'onnx',
    sizeBytes: 2_327_524,
    sizeExact: true,
    sha256: '1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3',
    checksumSource:
      'computed from snakers4/silero-vad commit bfdc019 (the "add v6.2 model" commit, tags v6.2, v6.2.1)',
    files: ['silero_vad.onnx'],
    customWords: false,
    engine: 'vad',
    license: 'MIT (Silero)',
    notes:
      'Byte-identical to the model dictum ships (assets/silero-vad/silero_vad.onnx): pull it offline with --from that file.',
    hints: { model: 'silero_vad.onnx', sampleRates: [8000, 16000], sileroVersion: '6.2' },
  },
]

/** Problems of an entry's VAD specifics: the family, and the model file among the installed files. */
export function vadEntryProblems(entry: CatalogEntry): string[] {
  const problems = entry.family === 'silero-vad' ? [] : [`family ${entry.family} is not silero-vad`]
  const hints = entry.hints as VadHints | undefined
  if (!hints) return [...problems, 'vad entries need hints']
  if (!entry.files.includes(hints.model)) problems.push(`vad model ${hints.model} is not in files`)
  return problems
}
