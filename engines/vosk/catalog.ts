/**
 * The Vosk models dictum can download (from alphacephei.com), with what the engine needs to know about each
 * (`hints`). They reach the model manager through the engine definition's `catalog`. alphacephei.com publishes
 * no checksums: a digest is pinned only where several independent public projects state the same value
 * (docs/models.md).
 */
import type { CatalogEntry } from '../../sdk/plugin.ts'

export interface VoskHints {
  /** `HCLG`: a static graph (`graph/HCLG.fst`); `lookahead`: `graph/HCLr.fst` + `graph/Gr.fst`. */
  graph: 'HCLG' | 'lookahead'
}

export interface VoskCatalogEntry extends CatalogEntry<VoskHints> {
  engine: 'vosk'
  family: 'vosk'
  hints: VoskHints
}

export const VOSK_CATALOG: readonly VoskCatalogEntry[] = [
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
    hints: { graph: 'lookahead' },
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
    checksumSource:
      'no public source states it: the first pull records the digest it computed (trust on first use)',
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
    hints: { graph: 'HCLG' },
  },
]

/** The entry with this id, when it is one of this engine's. */
export function voskCatalogEntry(id: string): VoskCatalogEntry | undefined {
  return VOSK_CATALOG.find((entry) => entry.id === id)
}

/** Problems of an entry's Vosk specifics: the family, and a graph kind whose files are installed. */
export function voskEntryProblems(entry: CatalogEntry): string[] {
  const problems = entry.family === 'vosk' ? [] : [`family ${entry.family} is not vosk`]
  const hints = entry.hints as VoskHints | undefined
  if (!hints) return [...problems, 'vosk entries need hints']
  const graph = hints.graph === 'HCLG' ? ['graph/HCLG.fst'] : ['graph/HCLr.fst', 'graph/Gr.fst']
  for (const file of graph)
    if (!entry.files.includes(file)) problems.push(`graph file ${file} is not in files`)
  return problems
}
