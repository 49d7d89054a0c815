/**
 * Pronunciations of English words in ARPAbet phones: a model's own dictionary (CMUdict format, `word phone…`,
 * alternates as `word(2)`), and a letter-to-sound step for words it lacks. Engines that take custom words
 * spell them with it (through the SDK), and learning tells a mishearing from a rewrite with it.
 *
 * Letter to sound is espeak-ng (Debian package `espeak-ng`): a maintained rule-based synthesizer whose
 * English rules cover any spelling, run here as `espeak-ng -q --ipa -v en-us` with one word per line. Its IPA
 * maps onto the CMU/ARPAbet phone set the en-us acoustic model uses (the table below). Without espeak-ng, a
 * word that is neither in the dictionary nor spelled by aliases is left out (and said so in the log).
 */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'

/** Base word (lower case) -> its pronunciations, in dictionary order. */
export type PronunciationDictionary = Map<string, string[]>

export async function readDictionary(file: string): Promise<PronunciationDictionary> {
  const dictionary: PronunciationDictionary = new Map()
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const space = line.indexOf(' ')
    if (space <= 0) continue
    const word = line.slice(0, space).replace(/\(\d+\)$/, '')
    const phones = line.slice(space + 1).trim()
    if (!phones) continue
    const list = dictionary.get(word)
    if (list) list.push(phones)
    else dictionary.set(word, [phones])
  }
  return dictionary
}

/** espeak-ng's en-us IPA -> ARPAbet (the 39 phones of CMUdict), longest symbols first. */
const IPA_TO_ARPABET: [string, string][] = (
  [
    ['aɪə', 'AY ER'],
    ['aɪ', 'AY'],
    ['aʊ', 'AW'],
    ['eɪ', 'EY'],
    ['oʊ', 'OW'],
    ['ɔɪ', 'OY'],
    ['tʃ', 'CH'],
    ['dʒ', 'JH'],
    ['ɑːɹ', 'AA R'],
    ['ɔːɹ', 'AO R'],
    ['ɛɹ', 'EH R'],
    ['ɪɹ', 'IH R'],
    ['ʊɹ', 'UH R'],
    ['ɜːɹ', 'ER'],
    ['ɜː', 'ER'],
    ['ɜ', 'ER'],
    ['ɚ', 'ER'],
    ['ɑː', 'AA'],
    ['ɑ', 'AA'],
    ['ɒ', 'AA'],
    ['æ', 'AE'],
    ['a', 'AE'],
    ['ʌ', 'AH'],
    ['ə', 'AH'],
    ['ɐ', 'AH'],
    ['ɔː', 'AO'],
    ['ɔ', 'AO'],
    ['ɛ', 'EH'],
    ['e', 'EH'],
    ['ɪ', 'IH'],
    ['ᵻ', 'IH'],
    ['iː', 'IY'],
    ['i', 'IY'],
    ['ʊ', 'UH'],
    ['uː', 'UW'],
    ['u', 'UW'],
    ['o', 'OW'],
    ['p', 'P'],
    ['b', 'B'],
    ['t', 'T'],
    ['ɾ', 'T'],
    ['d', 'D'],
    ['k', 'K'],
    ['ɡ', 'G'],
    ['g', 'G'],
    ['f', 'F'],
    ['v', 'V'],
    ['θ', 'TH'],
    ['ð', 'DH'],
    ['s', 'S'],
    ['z', 'Z'],
    ['ʃ', 'SH'],
    ['ʒ', 'ZH'],
    ['h', 'HH'],
    ['x', 'HH'],
    ['m', 'M'],
    ['n', 'N'],
    ['ŋ', 'NG'],
    ['l', 'L'],
    ['ɹ', 'R'],
    ['r', 'R'],
    ['w', 'W'],
    ['j', 'Y'],
  ] as [string, string][]
).sort((a, b) => b[0].length - a[0].length)

/** Length and syllable marks carry no phone of their own (stress marks are read, then dropped). */
const MARKS = /[.‿ʔ\s-]|\u0329/gu
const STRESS = new Set(['ˈ', 'ˌ'])
/** Full vowels that English speakers reduce to a schwa when unstressed (CMUdict writes AH for them). */
const REDUCIBLE = new Set(['EH', 'AE', 'AA', 'AO', 'UH'])
const VOWELS = new Set([
  'AA',
  'AE',
  'AH',
  'AO',
  'AW',
  'AY',
  'EH',
  'ER',
  'EY',
  'IH',
  'IY',
  'OW',
  'OY',
  'UH',
  'UW',
])

/**
 * ARPAbet pronunciations for one word's IPA: as espeak-ng says it, then (when it differs) with unstressed
 * full vowels reduced to AH, as CMUdict and casual speech have them ("counselled": K AW N S EH L D, and
 * K AW N S AH L D). Empty when a symbol has no mapping (the word is then skipped).
 */
export function ipaToArpabet(ipa: string): string[] {
  const text = ipa.normalize('NFC').replace(MARKS, '')
  const phones: string[] = []
  const reduced: string[] = []
  let stressed = false
  let at = 0
  while (at < text.length) {
    const char = text[at] as string
    if (STRESS.has(char) || char === 'ː') {
      if (char !== 'ː') stressed = true
      at++
      continue
    }
    const match = IPA_TO_ARPABET.find(([symbol]) => text.startsWith(symbol, at))
    if (!match) return []
    for (const phone of match[1].split(' ')) {
      phones.push(phone)
      const isVowel = VOWELS.has(phone)
      reduced.push(isVowel && !stressed && REDUCIBLE.has(phone) ? 'AH' : phone)
      if (isVowel) stressed = false
    }
    at += match[0].length
  }
  if (phones.length === 0) return []
  const spoken = phones.join(' ')
  const casual = reduced.join(' ')
  return casual === spoken ? [spoken] : [spoken, casual]
}

/**
 * ARPAbet pronunciations of `words` by espeak-ng (one process for the whole list); words it cannot spell
 * are absent. Rejects when espeak-ng is not installed.
 */
export function letterToSound(
  words: readonly string[],
  espeak = 'espeak-ng',
): Promise<Map<string, string[]>> {
  const spelled = new Map<string, string[]>()
  if (words.length === 0) return Promise.resolve(spelled)
  return new Promise((resolve, reject) => {
    const child = execFile(
      espeak,
      ['-q', '--ipa', '-v', 'en-us'],
      { timeout: 30_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => {
        if (error) return reject(error)
        const lines = stdout.split('\n').map((line) => line.trim())
        for (const [index, word] of words.entries()) {
          const variants = ipaToArpabet(lines[index] ?? '')
          if (variants.length > 0) spelled.set(word, variants)
        }
        resolve(spelled)
      },
    )
    // One word per line: espeak-ng answers each line with one line of IPA, in order.
    child.stdin?.end(`${words.join('\n')}\n`)
  })
}
