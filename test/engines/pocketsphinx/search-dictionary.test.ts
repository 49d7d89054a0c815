/**
 * The search dictionary (engines/pocketsphinx/search-dictionary.ts): the model's dictionary without the words
 * its language model lacks, made once into a cache folder, and decoding with it gives what decoding with the
 * model's own gives; a custom word the search dictionary lacks is added with the model's pronunciations.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { planBias } from '../../../engines/pocketsphinx/custom-words.ts'
import { PocketsphinxDecoder } from '../../../engines/pocketsphinx/decoder.ts'
import pocketsphinx from '../../../engines/pocketsphinx/index.ts'
import type { PocketsphinxEngine } from '../../../engines/pocketsphinx/instance.ts'
import { findLibraries } from '../../../engines/pocketsphinx/libraries.ts'
import { loadNative, type PocketsphinxNative } from '../../../engines/pocketsphinx/native.ts'
import { resolveModelPaths, searchArguments } from '../../../engines/pocketsphinx/options.ts'
import {
  baseWord,
  defaultCacheDir,
  pruneDictionary,
  searchDictionary,
} from '../../../engines/pocketsphinx/search-dictionary.ts'
import { audioFixturesDir, readClip } from './clips.ts'
import { context, options, skip } from './engine-context.ts'

const paths = resolveModelPaths(options, '/nonexistent')

/** The library, with its calls to ngram_model_read counted (reading the language model is the cost). */
async function countingNative(): Promise<{ native: PocketsphinxNative; reads: () => number }> {
  const libraries = findLibraries()
  if (!libraries) throw new Error('no pocketsphinx libraries')
  const native = await loadNative(libraries)
  let reads = 0
  const read = native.ngram_model_read
  native.ngram_model_read = (...args) => {
    reads++
    return read(...args)
  }
  return { native, reads: () => reads }
}

t.test('pruning keeps the lines of the words kept, alternates and order included', async (t) => {
  const text = 'a AH\na(2) EY\nzzz Z Z Z\nforward F AO R W ER D\nforward(2) F AO R W ER D Z\nzzz(2) Z\n'
  t.equal(
    pruneDictionary(text, (word) => word !== 'zzz'),
    'a AH\na(2) EY\nforward F AO R W ER D\nforward(2) F AO R W ER D Z\n',
  )
  t.equal(baseWord('forward(12)'), 'forward')
  t.equal(baseWord('c(plus)'), 'c(plus)', 'only a number in brackets names an alternate')
  t.equal(defaultCacheDir({ XDG_CACHE_HOME: '/x/cache' }), '/x/cache/dictum/pocketsphinx')
  t.match(
    defaultCacheDir({ XDG_CACHE_HOME: 'relative' }),
    /\/\.cache\/dictum\/pocketsphinx$/u,
    'relative: ignored',
  )
})

t.test('made once into the cache folder, with the words of the language model only', { skip }, async (t) => {
  const { native, reads } = await countingNative()
  const cacheDir = path.join(t.testdir(), 'cache')
  const made = searchDictionary(native, paths, cacheDir)
  t.equal(path.dirname(made.file), cacheDir)
  t.equal(reads(), 1, 'the language model read once to make it')
  const full = readFileSync(paths.dict, 'utf8').trimEnd().split('\n')
  const kept = readFileSync(made.file, 'utf8').trimEnd().split('\n')
  t.ok(kept.length > 50_000 && kept.length < full.length * 0.7, `${kept.length} of ${full.length} lines kept`)
  const keptSet = new Set(kept)
  const fullSet = new Set(full.map((line) => line.trimEnd()))
  t.ok(
    kept.every((line) => fullSet.has(line)),
    "its lines are the model's",
  )
  for (const word of ['go', 'forward', 'ten', 'meters', 'disposed'])
    t.ok(keptSet.has(full.find((line) => line.startsWith(`${word} `)) ?? ''), `"${word}" kept`)

  const stamp = statSync(made.file).mtimeMs
  const again = searchDictionary(native, paths, cacheDir)
  t.equal(again.file, made.file, 'found in the cache by the next engine')
  t.equal(reads(), 1, 'without reading the language model again')
  t.equal(statSync(made.file).mtimeMs, stamp, 'nor writing the file again')
  again.remove()
  t.ok(statSync(made.file).isFile(), 'a cached file stays for later processes')
})

t.test('a cache folder that cannot be written: a temporary file of its own, removed', { skip }, async (t) => {
  const { native } = await countingNative()
  const blocker = path.join(t.testdir(), 'not-a-folder')
  writeFileSync(blocker, 'a file where the cache folder would be')
  const made = searchDictionary(native, paths, path.join(blocker, 'cache'))
  t.notOk(made.file.startsWith(blocker))
  t.ok(statSync(made.file).size > 1_000_000, 'written whole')
  made.remove()
  t.throws(() => statSync(made.file), { code: 'ENOENT' }, 'removed when the engine closes')
})

t.test("the search dictionary decodes the clips exactly as the model's own", { skip }, async (t) => {
  const { native } = await countingNative()
  const made = searchDictionary(native, paths, path.join(t.testdir(), 'cache'))
  const search = searchArguments(options)
  const own = PocketsphinxDecoder.open(native, paths, search)
  const pruned = PocketsphinxDecoder.open(native, { ...paths, dict: made.file }, search)
  t.teardown(() => {
    own.free()
    pruned.free()
  })
  for (const clip of ['goforward.wav', 'librivox-austen-0880.wav', 'cards-002.wav']) {
    const samples = await readClip(path.join(audioFixturesDir, clip))
    const pcm = Int16Array.from(samples, (s) => Math.max(-32768, Math.min(32767, Math.round(s * 32767))))
    const a = own.decode(pcm)
    t.not(a.hypothesis, '', `${clip}: "${a.hypothesis}"`)
    t.same(pruned.decode(pcm), a, `${clip}: the same words, times and posteriors`)
  }
})

t.test('a custom word the search dictionary lacks comes with its pronunciations', async (t) => {
  const dictionary = new Map([
    ['aardema', ['AA R D EH M AH', 'AA R D IY M AH']],
    ['forward', ['F AO R W ER D']],
    ['cube', ['K Y UW B']],
  ])
  const inSearch = (word: string) => word !== 'aardema'
  const plan = planBias(
    [
      { text: 'Aardema', weight: null, aliases: ['cube'] },
      { text: 'forward', weight: null, aliases: [] },
    ],
    dictionary,
    new Map(),
    inSearch,
  )
  t.same(
    plan.additions,
    [
      { word: 'aardema', phones: 'AA R D EH M AH' },
      { word: 'aardema(2)', phones: 'AA R D IY M AH' },
      { word: 'aardema(3)', phones: 'K Y UW B' },
    ],
    "its own pronunciations first, numbered as the model's, then its alias",
  )
  t.same(
    plan.unigrams.map((u) => u.word),
    ['aardema', 'forward'],
    'a word the search has: nothing added',
  )
  const everywhere = planBias([{ text: 'Aardema', weight: null, aliases: [] }], dictionary, new Map())
  t.same(everywhere.additions, [], "with the model's whole dictionary loaded: nothing to add")
})

t.test(
  'the engine: decoders load the search dictionary; such a custom word is added',
  { skip },
  async (t) => {
    const engine = (await pocketsphinx.create(context)) as PocketsphinxEngine
    t.teardown(() => engine.close())
    const samples = await readClip(path.join(audioFixturesDir, 'goforward.wav'))
    const plain = await engine.transcribe({ samples, customWords: [] })
    t.equal(plain.text, 'go forward ten meters')
    // A word of the model's dictionary that its language model lacks (so the search dictionary lacks it).
    const { native } = await countingNative()
    const made = searchDictionary(native, paths)
    const searched = new Set(
      readFileSync(made.file, 'utf8')
        .split('\n')
        .map((line) => baseWord(line.slice(0, line.indexOf(' ')))),
    )
    const absent = readFileSync(paths.dict, 'utf8')
      .split('\n')
      .map((line) => line.slice(0, line.indexOf(' ')))
      .find((word) => /^[a-z]+$/u.test(word) && !searched.has(word))
    t.ok(absent, `a word the search dictionary lacks: "${absent}"`)
    await engine.transcribe({ samples, customWords: [{ text: absent as string, weight: null, aliases: [] }] })
    t.same(
      engine.fileDecoderWork,
      { dictionaryLoads: 1, searchBuilds: 1 },
      'a dictionary with it added, loaded',
    )
    await engine.transcribe({ samples, customWords: [{ text: 'forward', weight: null, aliases: [] }] })
    t.same(
      engine.fileDecoderWork,
      { dictionaryLoads: 1, searchBuilds: 2 },
      'a word the search has: no dictionary to load (the one loaded serves it)',
    )
  },
)
