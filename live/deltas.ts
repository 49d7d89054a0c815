/**
 * The append-only text of one live item: turns the engine's revising hypotheses into `delta`s that never
 * take anything back, and makes sure the deltas concatenate exactly to the `completed` transcript when the
 * engine's final agrees with what was sent.
 *
 * Stability rule (docs/live.md): a word is emitted once it is the same in two consecutive hypotheses and at
 * least `hold` words follow it in the current one, where `hold` is one or the longest replacement trigger's
 * word count less one, whichever is more: a trigger that starts in the emitted text then ends inside the
 * current hypothesis, so words still to come can never turn emitted text into a replacement. Emitted text is
 * the dictionary applied to the stable words, and only when it is also the start of the dictionary applied
 * to the whole hypothesis. (Measured on the shared clips with pocketsphinx: waiting for three hypotheses or
 * two words after did not make the sent words agree with the final any more often, and left gaps of over
 * half a second between deltas.)
 *
 * The engine's final result is the item's transcript: it is what a file transcription of the same audio
 * gives, and it is what history keeps. When it extends the emitted text (always, for engines whose partials
 * come from the pass that gives the final: sherpa-onnx transducers, Vosk), the last delta completes it and
 * the deltas concatenate to the transcript. An engine whose partials come from another pass than its final
 * (pocketsphinx: its final pass rescores the whole utterance, see engines/pocketsphinx/stream.ts) can revise
 * a word already emitted; the transcript is still the final, the last delta carries the final's words after
 * those the emitted ones align with (so a client that only appends still ends with the end of the
 * utterance), and the item is marked `revised`.
 */

export interface FinalText {
  /** The completed transcript: the engine's final, dictionary applied (the deltas' concatenation unless revised). */
  transcript: string
  /** The last delta (may be empty). */
  delta: string
  /** True when the final revised emitted words: the deltas do not concatenate to the transcript (see above). */
  revised: boolean
}

interface Words {
  /** The hypothesis, trimmed. */
  text: string
  words: string[]
  /** End offset in `text` of each word. */
  ends: number[]
  /** Start offset in `text` of each word. */
  starts: number[]
}

function wordsOf(raw: string): Words {
  const text = raw.trim()
  const words: string[] = []
  const starts: number[] = []
  const ends: number[] = []
  for (const match of text.matchAll(/\S+/gu)) {
    words.push(match[0])
    starts.push(match.index)
    ends.push(match.index + match[0].length)
  }
  return { text, words, starts, ends }
}

function commonPrefixLength(a: readonly string[], b: readonly string[]): number {
  let n = 0
  while (n < a.length && n < b.length && a[n] === b[n]) n++
  return n
}

/** Words in the longest trigger, for the hold-back (a trigger's whitespace matches any run of it). */
export function longestTriggerWords(triggers: Iterable<string>): number {
  let longest = 0
  for (const trigger of triggers) {
    const count = trigger.trim() === '' ? 0 : trigger.trim().split(/\s+/u).length
    if (count > longest) longest = count
  }
  return longest
}

export class ItemText {
  readonly #replace: (text: string) => string
  readonly #hold: number
  #emitted = ''
  /** Raw words the emitted text covers. */
  #emittedWords: string[] = []
  /** The hypothesis before the current one. */
  #previous: string[] = []

  /** `replace`: the dictionary's replacement rules; `longestTrigger`: {@link longestTriggerWords}. */
  constructor(replace: (text: string) => string, longestTrigger: number) {
    this.#replace = replace
    this.#hold = Math.max(1, longestTrigger - 1)
  }

  /** Text sent as deltas so far. */
  get emitted(): string {
    return this.#emitted
  }

  /** A new hypothesis: its text with replacements (the `partial`), and the new stable text ('' if none). */
  partial(raw: string): { text: string; delta: string } {
    const hypothesis = wordsOf(raw)
    const text = this.#replace(hypothesis.text)
    const stable = Math.min(
      commonPrefixLength(hypothesis.words, this.#previous),
      hypothesis.words.length - this.#hold,
    )
    this.#previous = hypothesis.words
    for (let k = stable; k > this.#emittedWords.length; k--) {
      const candidate = this.#replace(hypothesis.text.slice(0, hypothesis.ends[k - 1]))
      if (!text.startsWith(candidate) || !candidate.startsWith(this.#emitted)) continue
      const delta = candidate.slice(this.#emitted.length)
      this.#emitted = candidate
      this.#emittedWords = hypothesis.words.slice(0, k)
      return { text, delta }
    }
    return { text, delta: '' }
  }

  /** The final result: the transcript and the delta that completes it. */
  final(raw: string): FinalText {
    const result = wordsOf(raw)
    const full = this.#replace(result.text)
    if (full.startsWith(this.#emitted)) {
      return { transcript: full, delta: full.slice(this.#emitted.length), revised: false }
    }
    const from = result.starts[alignedPrefix(this.#emittedWords, result.words)]
    const tail = from === undefined ? '' : this.#replace(result.text.slice(from))
    const delta = this.#emitted !== '' && tail !== '' ? ` ${tail}` : tail
    return { transcript: full, delta, revised: true }
  }
}

/**
 * How many of `final`'s first words the `sent` words stand for: the prefix of `final` at the least edit
 * distance from `sent`, the shorter one on a tie (a client that only appends then rather sees a word twice
 * than loses the end of the utterance). "stuff it into you his belly" against "stuff it into his belly
 * counsel them" is 5; "go forward to and" against "go forward ten meters" is 2.
 */
export function alignedPrefix(sent: readonly string[], final: readonly string[]): number {
  // row[j]: edit distance between the sent words so far and final[0..j)
  let row = Array.from({ length: final.length + 1 }, (_, j) => j)
  for (let i = 1; i <= sent.length; i++) {
    const next = [i]
    for (let j = 1; j <= final.length; j++) {
      const substitution = (row[j - 1] as number) + (sent[i - 1] === final[j - 1] ? 0 : 1)
      next.push(Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, substitution))
    }
    row = next
  }
  let best = 0
  for (let j = 1; j <= final.length; j++) if ((row[j] as number) < (row[best] as number)) best = j
  return best
}
