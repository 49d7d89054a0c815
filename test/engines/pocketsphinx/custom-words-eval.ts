/**
 * How custom words change pocketsphinx on the repo's real speech clips: recall of the boosted words and the
 * word error rate of every other word, for the test (a fixed set) and the `custom-words` bench.
 */
import type { EngineCustomWord } from '../../../kernel/contracts/engine.ts'
import { normaliseWords, wordEdits } from '../../helpers/wer.ts'
import { type Clip, readClip, referenceClips } from './clips.ts'

/**
 * Words pocketsphinx gets wrong on the clips with its own model (its transcripts against the references):
 * "ladled" (labeled), "counselled" (counsel them: not in its dictionary at all), "disposed" (twice: explosion,
 * those), "prudently" (prickly), "unless" (homeless). No aliases: "counselled" is spelled by letter to sound.
 */
export const MISRECOGNISED: EngineCustomWord[] = [
  'ladled',
  'counselled',
  'disposed',
  'prudently',
  'unless',
].map((text) => ({ text, weight: null, aliases: [] }))

export interface ClipAudio extends Clip {
  samples: Float32Array
}

export async function clipsWithAudio(): Promise<ClipAudio[]> {
  return Promise.all(referenceClips().map(async (clip) => ({ ...clip, samples: await readClip(clip.path) })))
}

export interface CustomWordsScore {
  /** Occurrences of the boosted words in the references that the transcripts have. */
  hits: number
  occurrences: number
  /** Word error rate over the words that are not boosted (both texts with the boosted words left out). */
  otherWer: number
}

export function scoreCustomWords(
  boosted: readonly string[],
  pairs: readonly { reference: string; hypothesis: string }[],
): CustomWordsScore {
  const words = new Set(boosted.map((w) => w.toLowerCase()))
  let hits = 0
  let occurrences = 0
  let edits = 0
  let otherWords = 0
  for (const { reference, hypothesis } of pairs) {
    const ref = normaliseWords(reference)
    const hyp = normaliseWords(hypothesis)
    for (const word of words) {
      const n = ref.filter((w) => w === word).length
      occurrences += n
      hits += Math.min(n, hyp.filter((w) => w === word).length)
    }
    const refOthers = ref.filter((w) => !words.has(w))
    edits += wordEdits(
      refOthers,
      hyp.filter((w) => !words.has(w)),
    )
    otherWords += refOthers.length
  }
  return { hits, occurrences, otherWer: otherWords === 0 ? 0 : edits / otherWords }
}
