/**
 * How alike two word sequences sound: their phones (ARPAbet, from a pronunciation dictionary: the model's of
 * the engine that heard them, which its definition names, or `learning.pronunciations`; else spelled by
 * espeak-ng) and an edit distance over them where a vowel for a vowel, or a consonant for one of its own
 * manner (stop for stop, nasal for nasal…), costs half.
 */
import { existsSync } from 'node:fs'
import { letterToSound, type PronunciationDictionary, readDictionary } from '../text/pronunciations.ts'

const CLASSES: string[][] = [
  ['AA', 'AE', 'AH', 'AO', 'AW', 'AY', 'EH', 'ER', 'EY', 'IH', 'IY', 'OW', 'OY', 'UH', 'UW'],
  ['P', 'B', 'T', 'D', 'K', 'G'],
  ['F', 'V', 'TH', 'DH', 'S', 'Z', 'SH', 'ZH', 'HH'],
  ['CH', 'JH'],
  ['M', 'N', 'NG'],
  ['L', 'R', 'W', 'Y'],
]
const CLASS_OF = new Map(CLASSES.flatMap((members, index) => members.map((phone) => [phone, index])))

function substitution(a: string, b: string): number {
  if (a === b) return 0
  const klass = CLASS_OF.get(a)
  return klass !== undefined && klass === CLASS_OF.get(b) ? 0.5 : 1
}

/** Weighted edit distance of two phone sequences over the longer one's length: 0 same, 1 nothing alike. */
export function phoneDistance(a: readonly string[], b: readonly string[]): number {
  const longest = Math.max(a.length, b.length)
  if (longest === 0) return 0
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j - 1] as number) + substitution(a[i - 1] as string, b[j - 1] as string),
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
      )
    }
    previous = current
  }
  return (previous[b.length] as number) / longest
}

/** Phones of words: the dictionary's first pronunciation, else espeak-ng's; null for a word neither has. */
export class Pronouncer {
  readonly #file: string | null
  #dictionary: Promise<PronunciationDictionary> | null = null
  readonly #spelled = new Map<string, string[] | null>()

  /** `file`: a CMUdict-format dictionary; null (or a missing file): every word is spelled by espeak-ng. */
  constructor(file: string | null) {
    this.#file = file
  }

  /** Whether the model's dictionary has the word (a word it lacks is spelled by letter to sound). */
  async known(word: string): Promise<boolean> {
    return (await this.#read()).has(word)
  }

  /** Each word's phones, in order; null when one of them cannot be pronounced. */
  async phones(sequence: readonly string[]): Promise<string[] | null> {
    const dictionary = await this.#read()
    const missing = sequence.filter((word) => !dictionary.has(word) && !this.#spelled.has(word))
    if (missing.length > 0) {
      const spelled = await letterToSound(missing).catch(() => new Map<string, string[]>())
      for (const word of missing) this.#spelled.set(word, spelled.get(word)?.[0]?.split(' ') ?? null)
    }
    const phones: string[] = []
    for (const word of sequence) {
      const known = dictionary.get(word)?.[0]?.split(' ') ?? this.#spelled.get(word)
      if (!known) return null
      phones.push(...known)
    }
    return phones
  }

  #read(): Promise<PronunciationDictionary> {
    this.#dictionary ??=
      this.#file && existsSync(this.#file)
        ? readDictionary(this.#file)
        : Promise.resolve(new Map() as PronunciationDictionary)
    return this.#dictionary
  }
}
