/**
 * The built-in catalog entries. Sources (see docs/models.md for the full story):
 * - Archive names and the files inside them: the sherpa-onnx docs (k2-fsa/sherpa `docs/source/onnx/...`) and the
 *   export workflows of k2-fsa/sherpa-onnx (`.github/workflows/export-*.yaml`, `scripts/`), which pack each
 *   folder with `tar cjf <name>.tar.bz2 <name>` and upload it to the `asr-models` release.
 * - Archive sizes and SHA-256: upstream publishes them only as release metadata and a `checksum.txt` release
 *   asset, which this project cannot fetch. A digest is pinned here only where at least two independent public
 *   projects state the same value (several of them say they took it from that `checksum.txt` or from the
 *   release asset's digest, or re-hashed the download). Everything else is `sha256: null` (trust on first use).
 * - The Silero VAD digests of the two snakers4 files were computed here from the snakers4/silero-vad git
 *   history (`v5.0:files/silero_vad.onnx`, and commit bfdc019 `src/silero_vad/data/silero_vad.onnx`, which is
 *   byte-identical to assets/silero-vad/silero_vad.onnx, which dictum ships).
 */
import type { CatalogEntry } from './catalog.ts'
import { NO_SOURCE, SHERPA_ONNX_ENTRIES, SHERPA_RELEASE, TWO_SOURCES } from './catalog-sherpa-onnx.ts'

const VAD_ENTRIES: CatalogEntry[] = [
  {
    id: 'silero-vad',
    family: 'silero-vad',
    displayName: 'Silero VAD (sherpa-onnx export, 16 kHz)',
    languages: [],
    url: `${SHERPA_RELEASE}/silero_vad.onnx`,
    archive: 'onnx',
    sizeBytes: 643_854,
    sizeExact: true,
    sha256: '9e2449e1087496d8d4caba907f23e0bd3f78d91fa552479bb9c23ac09cbb1fd6',
    checksumSource: TWO_SOURCES,
    files: ['silero_vad.onnx'],
    customWords: false,
    engine: 'vad',
    license: 'MIT (Silero)',
    notes: 'Exported and maintained by k2-fsa (upstream docs: 629 KB, 16 kHz only). Not the snakers4 file.',
    vad: { model: 'silero_vad.onnx', sampleRates: [16000], sileroVersion: null },
  },
  {
    id: 'silero-vad-v5',
    family: 'silero-vad',
    displayName: 'Silero VAD v5 (upstream file)',
    languages: [],
    url: `${SHERPA_RELEASE}/silero_vad_v5.onnx`,
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
    vad: { model: 'silero_vad.onnx', sampleRates: [8000, 16000], sileroVersion: '5.0' },
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
    vad: { model: 'silero_vad.onnx', sampleRates: [8000, 16000], sileroVersion: '6.2' },
  },
]

const VOSK_ENTRIES: CatalogEntry[] = [
  {
    id: 'vosk-model-small-en-us-0.15',
    family: 'vosk',
    displayName: 'Vosk small US English 0.15',
    languages: ['en'],
    url: 'https://alphacephei.com/vosk/models/vosk-model-small-en-us-0.15.zip',
    archive: 'zip',
    sizeBytes: 41_205_931,
    sizeExact: true,
    sha256: '30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498',
    checksumSource:
      'stated identically by several independent public projects (alphacephei.com publishes none)',
    files: [
      'am/final.mdl',
      'conf/model.conf',
      'conf/mfcc.conf',
      'graph/HCLr.fst',
      'graph/Gr.fst',
      'ivector/final.ie',
    ],
    customWords: false,
    engine: 'vosk',
    license: 'Apache-2.0 (Alpha Cephei)',
    vosk: { graph: 'lookahead' },
  },
  {
    id: 'vosk-model-en-us-0.22',
    family: 'vosk',
    displayName: 'Vosk US English 0.22 (large)',
    languages: ['en'],
    url: 'https://alphacephei.com/vosk/models/vosk-model-en-us-0.22.zip',
    archive: 'zip',
    sizeBytes: 1_800_000_000,
    sizeExact: false,
    sha256: null,
    checksumSource: NO_SOURCE,
    files: [
      'am/final.mdl',
      'conf/model.conf',
      'conf/mfcc.conf',
      'graph/HCLG.fst',
      'graph/words.txt',
      'ivector/final.ie',
    ],
    customWords: false,
    engine: 'vosk',
    license: 'Apache-2.0 (Alpha Cephei)',
    notes: 'About 1.8 GB; wants several GB of RAM.',
    vosk: { graph: 'HCLG' },
  },
]

export const CATALOG_ENTRIES: readonly CatalogEntry[] = [
  ...SHERPA_ONNX_ENTRIES,
  ...VAD_ENTRIES,
  ...VOSK_ENTRIES,
]
