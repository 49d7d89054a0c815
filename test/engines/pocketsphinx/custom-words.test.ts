/**
 * Custom words on pocketsphinx, proven on real speech: the words it gets wrong on the repo's clips are
 * recognised once added (recall up, the other words no worse), a word its dictionary lacks is recognised
 * with an alias and without one (letter to sound), the transcript shows the canonical text, and the
 * capability reaches GET /v1/engines and /v1/transcribe through the engine's own process.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { arpaUnigrams, planBias, unknownWords } from '../../../engines/pocketsphinx/custom-words.ts'
import pocketsphinx from '../../../engines/pocketsphinx/index.ts'
import type { PocketsphinxEngine } from '../../../engines/pocketsphinx/instance.ts'
import type { EngineCustomWord, EngineInstance } from '../../../kernel/contracts/engine.ts'
import { ipaToArpabet, letterToSound } from '../../../text/pronunciations.ts'
import { build, injectJson } from '../../helpers/build.ts'
import { repoRoot } from '../../helpers/wav.ts'
import { readClip } from './clips.ts'
import { clipsWithAudio, MISRECOGNISED, scoreCustomWords } from './custom-words-eval.ts'
import { context, skip } from './engine-context.ts'
import { defaultCorpusPass } from './runner.ts'

const BELLY = path.join(repoRoot, 'test/fixtures/audio/librispeech-1089-134686-0001.wav')

t.test('IPA from espeak-ng maps onto the model phone set, with a reduced variant', async (t) => {
  t.same(ipaToArpabet('kˈaʊnsɛld'), ['K AW N S EH L D', 'K AW N S AH L D'])
  t.same(ipaToArpabet('hɛlˈoʊ'), ['HH EH L OW', 'HH AH L OW'], 'only unstressed full vowels are reduced')
  t.same(ipaToArpabet('tʃˈɜːtʃ'), ['CH ER CH'])
  t.same(ipaToArpabet('☃'), [], 'an unknown symbol: no pronunciation rather than a wrong one')
})

t.test('the plan: known words, aliases, unknown words, phrases, weights, canonical text', async (t) => {
  const dictionary = new Map([
    ['country', ['K AH N T R IY']],
    ['cube', ['K Y UW B']],
    ['er', ['ER']],
    ['net', ['N EH T']],
    ['ease', ['IY Z']],
    ['new', ['N UW']],
    ['york', ['Y AO R K']],
  ])
  const words: EngineCustomWord[] = [
    { text: 'country', weight: 50, aliases: [] },
    { text: 'Kubernetes', weight: null, aliases: ['cube er net ease'] },
    { text: 'New York', weight: 100, aliases: [] },
    { text: 'Zorblat', weight: 5, aliases: [] },
    { text: '!!!', weight: 5, aliases: [] },
  ]
  t.same(unknownWords(words, dictionary), ['kubernetes', 'zorblat'])
  const plan = planBias(words, dictionary, new Map([['zorblat', ['Z AO R B L AE T']]]))
  t.same(plan.additions, [
    { word: 'kubernetes', phones: 'K Y UW B ER N EH T IY Z' },
    { word: 'new_york', phones: 'N UW Y AO R K' },
    { word: 'zorblat', phones: 'Z AO R B L AE T' },
  ])
  t.same(plan.unigrams, [
    { word: 'country', probability: 0.5 },
    { word: 'kubernetes', probability: 0.1 },
    { word: 'new_york', probability: 1 },
    { word: 'zorblat', probability: 0.05 },
  ])
  t.same(
    [...plan.canonical],
    [
      ['kubernetes', 'Kubernetes'],
      ['new_york', 'New York'],
      ['zorblat', 'Zorblat'],
    ],
  )
  t.same(plan.skipped, [{ text: '!!!', reason: 'no letters or digits to pronounce' }])
  t.equal(
    planBias(words, dictionary, new Map([['zorblat', ['Z AO R B L AE T']]])).key,
    plan.key,
    'stable key',
  )
  t.not(planBias(words.slice(1), dictionary, new Map()).key, plan.key)
  t.match(arpaUnigrams(plan.unigrams), /^\\data\\\nngram 1=4\n\n\\1-grams:\n-0\.3010 country\n/)

  const alias = planBias([{ text: 'country', weight: null, aliases: ['cube'] }], dictionary, new Map())
  t.same(
    alias.additions,
    [{ word: 'country(2)', phones: 'K Y UW B' }],
    'an alias of a known word: an alternate',
  )
})

t.test('letter to sound spells a word the dictionary lacks', { skip }, async (t) => {
  const spelled = await letterToSound(['counselled'])
  t.ok(spelled.get('counselled')?.includes('K AW N S AH L D'), 'as CMUdict spells "counseled"')
})

/**
 * The clips through the engine with `words`: those that say one of them, and goforward.wav, which says none
 * (a boosted word must not turn up where nobody said it). jfk.wav and the cards say none either: the
 * `custom-words` bench takes the whole corpus, the test leaves out their ~40 % of its audio.
 */
async function transcribeAll(engine: EngineInstance, words: EngineCustomWord[]) {
  const pairs: { reference: string; hypothesis: string }[] = []
  const said = (clip: { path: string; reference: string }) =>
    clip.path.endsWith('goforward.wav') ||
    words.some((w) => new RegExp(`\\b${w.text}\\b`, 'i').test(clip.reference))
  for (const clip of (await clipsWithAudio()).filter(said)) {
    const result = await engine.transcribe({ samples: clip.samples, customWords: words })
    pairs.push({ reference: clip.reference, hypothesis: result.text })
  }
  return pairs
}

t.test('real speech: the misrecognised words come out right, the rest no worse', { skip }, async (t) => {
  const engine = await pocketsphinx.create(context)
  t.teardown(() => engine.close())
  const boosted = MISRECOGNISED.map((w) => w.text)
  const boostedPairs = await transcribeAll(engine, MISRECOGNISED)
  // Without custom words, the same clips: from the corpus through the engine as dictum runs it, with the
  // same options (the pass the engine runner's test compares with the command line, made once per process).
  const plain = (await defaultCorpusPass(t))
    .filter(({ clip }) => boostedPairs.some((p) => p.reference === clip.reference))
    .map(({ clip, result }) => ({ reference: clip.reference, hypothesis: result.text }))
  t.equal(plain.length, 6, 'the 5 clips that say a boosted word, and goforward.wav')
  const before = scoreCustomWords(boosted, plain)
  const after = scoreCustomWords(boosted, boostedPairs)
  t.equal(before.occurrences, 6)
  t.equal(before.hits, 0, 'without custom words none of them is recognised')
  t.ok(after.hits >= 5, `with them, recall ${after.hits}/${after.occurrences}`)
  t.ok(
    after.otherWer <= before.otherWer,
    `the other words are no worse (WER ${after.otherWer.toFixed(3)} vs ${before.otherWer.toFixed(3)})`,
  )
  // Back to no custom words: the dictionary is reloaded as the model's own, so the text is as before
  // (checked on the clip whose word the custom words added to the dictionary).
  const belly = (await clipsWithAudio()).find((c) => c.path === BELLY)
  const again = await engine.transcribe({ samples: belly!.samples, customWords: [] })
  t.equal(
    again.text,
    plain.find((p) => p.reference === belly!.reference)?.hypothesis,
    'without custom words again, the model is as before',
  )
})

t.test('a word not in the dictionary, with an alias and without, canonical text', { skip }, async (t) => {
  const engine = (await pocketsphinx.create(context)) as PocketsphinxEngine
  t.teardown(() => engine.close())
  const samples = await readClip(BELLY)
  const plain = await engine.transcribe({ samples, customWords: [] })
  t.notMatch(plain.text, /counselled/i, 'pocketsphinx alone cannot say it')
  const withAlias = await engine.transcribe({
    samples,
    customWords: [{ text: 'Counselled', weight: null, aliases: ['counseled'] }],
  })
  t.match(withAlias.text, /\bCounselled\b/, `with an alias: ${withAlias.text}`)
  t.ok(
    withAlias.words?.some((w: { word: string }) => w.word === 'Counselled'),
    'the word timings show the canonical text too',
  )
  const withoutAlias = await engine.transcribe({
    samples,
    customWords: [{ text: 'counselled', weight: null, aliases: [] }],
  })
  t.match(withoutAlias.text, /\bcounselled\b/, `letter to sound alone: ${withoutAlias.text}`)
  t.same(engine.fileDecoderWork, { dictionaryLoads: 2, searchBuilds: 2 }, 'a dictionary and a search each')

  // Without them again, and with the same again: the dictionary loaded serves both (a word the language
  // model lacks is never searched), so neither is set up again, and each text is as before.
  const transcribe = async (customWords: EngineCustomWord[]) =>
    (await engine.transcribe({ samples, customWords })).text
  t.equal(await transcribe([]), plain.text, 'without custom words: the text as at first')
  t.equal(
    await transcribe([{ text: 'counselled', weight: null, aliases: [] }]),
    withoutAlias.text,
    'the same custom word again',
  )
  t.same(engine.fileDecoderWork, { dictionaryLoads: 2, searchBuilds: 2 }, 'nothing set up again')
  // An alias of a word the model knows is another pronunciation of it, which every search would use: its
  // dictionary is loaded, and the model's own again when the custom words go.
  const country = await transcribe([{ text: 'country', weight: null, aliases: ['cube'] }])
  t.equal(await transcribe([]), plain.text, 'without custom words: the text as at first')
  t.same(engine.fileDecoderWork, { dictionaryLoads: 4, searchBuilds: 3 }, `and loaded back ("${country}")`)
})

t.test('through the API: GET /v1/engines and /v1/transcribe in the engine process', { skip }, async (t) => {
  const app = await build(t, { speech: { engine: 'pocketsphinx' } })
  const engines = await injectJson(app, 'GET', '/v1/engines')
  const entry = engines.body.items.find((e: { id: string }) => e.id === 'pocketsphinx')
  t.equal(entry.capabilities.customWords, true)
  const audioBase64 = readFileSync(BELLY).toString('base64')
  const before = await injectJson(app, 'POST', '/v1/transcribe', { audioBase64 })
  t.notMatch(before.body.text, /counselled/i)
  const added = await injectJson(app, 'POST', '/v1/dictionary/custom-words', {
    text: 'Counselled',
    aliases: ['counseled'],
  })
  t.equal(added.status, 200)
  const after = await injectJson(app, 'POST', '/v1/transcribe', { audioBase64 })
  t.equal(after.status, 200)
  t.match(after.body.text, /\bCounselled\b/, `the dictionary's custom word: ${after.body.text}`)
})
