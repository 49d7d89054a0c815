/** Options of the pocketsphinx engine (config `speech.engines.pocketsphinx`). */
import path from 'node:path'
import { type Static, Type } from '@sinclair/typebox'

/** Where Debian's `pocketsphinx-en-us` package puts the US English model. */
export const DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us'

/** A non-empty path, with its description. */
const PathString = (description: string) => Type.String({ minLength: 1, description })

export const PocketsphinxOptionsSchema = Type.Object(
  {
    modelDir: Type.String({
      minLength: 1,
      default: DEFAULT_MODEL_DIR,
      description: 'Model folder (relative paths are inside the models directory).',
    }),
    hmm: Type.Optional(PathString('Acoustic model folder; default `<modelDir>/en-us`.')),
    lm: Type.Optional(PathString('Language model; default `<modelDir>/en-us.lm.bin`.')),
    dict: Type.Optional(PathString('Pronunciation dictionary; default `<modelDir>/cmudict-en-us.dict`.')),
    language: Type.String({
      minLength: 2,
      default: 'en',
      description: 'Language of the model (ISO 639-1), for models other than the default US English one.',
    }),
    fwdflat: Type.Boolean({
      default: false,
      description:
        'Run the flat-lexicon second search pass (pocketsphinx -fwdflat). Off by default: faster, and no less accurate on the shared clips.',
    }),
    frameDownsample: Type.Integer({
      minimum: 1,
      maximum: 4,
      default: 2,
      description:
        'Score the acoustic model on every Nth frame (pocketsphinx -ds). 2 by default: faster, and no less accurate on the shared clips; 1 scores every frame.',
    }),
    maxHmmsPerFrame: Type.Integer({
      minimum: 100,
      maximum: 100000,
      default: 30000,
      description:
        "Most HMMs the search keeps active per frame (pocketsphinx -maxhmmpf; 30000, the library's default). 5000 costs about 40 % less CPU per transcription and per live utterance's final text with the same WER on the shared clips, but lost words on compressed audio (jfk as MP3): a choice for a slow machine.",
    }),
    adaptAcrossRequests: Type.Boolean({
      default: false,
      description:
        "Let noise removal, silence removal and live cepstral mean normalisation carry what they learned from one request to the next (pocketsphinx's live-mode defaults). Off by default, so the same audio always gives the same text whatever was decoded before.",
    }),
    streaming: Type.Boolean({
      default: true,
      description:
        "Partial text while a live utterance goes on (a live decoder per session, about 85 MB each, beside the final pass). Off: live sessions get each utterance's text when it ends.",
    }),
    maxLiveDecoders: Type.Integer({
      minimum: 1,
      default: 4,
      description:
        'Live decoders (about 85 MB each) an engine host keeps at most, shared by the live utterances on it: one more utterance than that waits for a free one, giving no partial text meanwhile; its final text is not affected.',
    }),
    libraryDir: Type.Optional(
      PathString(
        'Folder holding libpocketsphinx.so.3 and libsphinxbase.so.3; default: the system library folders.',
      ),
    ),
  },
  { additionalProperties: false },
)

export type PocketsphinxOptions = Static<typeof PocketsphinxOptionsSchema>

/** The options that make the search and front-end settings. */
export type SearchOptions = Pick<
  PocketsphinxOptions,
  'fwdflat' | 'frameDownsample' | 'maxHmmsPerFrame' | 'adaptAcrossRequests'
>

/** HMMs active per frame at most in the live pass (below `maxHmmsPerFrame` when that is set higher). */
const LIVE_MAX_HMMS_PER_FRAME = 5000

/**
 * The search and front-end settings passed to the decoder, as pocketsphinx command-line arguments: those of
 * a file transcription, and so of a live utterance's final text (stream.ts).
 */
export function searchArguments(options: SearchOptions): string[] {
  const search = [
    '-fwdflat',
    options.fwdflat ? 'yes' : 'no',
    '-ds',
    String(options.frameDownsample),
    '-maxhmmpf',
    String(options.maxHmmsPerFrame),
  ]
  if (options.adaptAcrossRequests) return search
  // Each utterance normalised on its own mean, with no noise or silence estimate kept from earlier ones.
  return [...search, '-cmn', 'batch', '-remove_noise', 'no', '-remove_silence', 'no']
}

/**
 * The live pass's search (stream.ts): the file search with at most 5000 HMMs active per frame (whatever
 * `maxHmmsPerFrame` is) and at most 10 words ending per frame (default: no limit). Measured in process on
 * the shared clips (`npm run bench -- live-cpu`, docs/live.md): 148 against 190 ms of CPU per second of
 * audio for the earlier `-maxhmmpf 10000` (22 % less), the same deltas (WER 0.336) and the longest gap
 * between deltas per clip 250 ms (median; 200 before); 4000 made the deltas worse (WER 0.397), as `-topn 2`
 * and `-ds 3` did. The final keeps the file search exactly.
 */
export function liveSearchArguments(options: SearchOptions): string[] {
  const maxHmmsPerFrame = Math.min(options.maxHmmsPerFrame, LIVE_MAX_HMMS_PER_FRAME)
  return [...searchArguments({ ...options, maxHmmsPerFrame }), '-maxwpf', '10']
}

export interface ModelPaths {
  hmm: string
  lm: string
  dict: string
}

/** The three model paths, absolute: `modelDir` relative to the models directory, the rest to `modelDir`. */
export function resolveModelPaths(options: PocketsphinxOptions, modelsDir: string): ModelPaths {
  const modelDir = path.resolve(modelsDir, options.modelDir)
  return {
    hmm: path.resolve(modelDir, options.hmm ?? 'en-us'),
    lm: path.resolve(modelDir, options.lm ?? 'en-us.lm.bin'),
    dict: path.resolve(modelDir, options.dict ?? 'cmudict-en-us.dict'),
  }
}
