/**
 * The dictionary pocketsphinx's decoders load: the model's, without the words its language model lacks.
 * pocketsphinx searches only the words of its language models, so a decoder that loads the whole dictionary
 * parses, hashes and keeps ~55,000 entries of Debian's ~135,000 (CMUdict) that it never searches. Without
 * them, measured on this model (docs/engines-pocketsphinx.md): a decoder opens in ~18 % less CPU and holds
 * ~13 MB less, for the file decoder and every live decoder alike; the text is the same.
 *
 * Which words the language model has is read from the model itself (~0.5 s of CPU), so the result is written
 * once per model (its dictionary and language model, by path, size and modification time) into the user's
 * cache folder, where every later process finds it. Where that folder cannot be written, the engine writes a
 * temporary file of its own instead. Custom words the model's dictionary has but the language model lacks
 * are added to their plan's dictionary (custom-words.ts `planBias`, `inSearchDictionary`).
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { dictumCacheDir, writeCacheFile } from '../../sdk/plugin.ts'
import { NGRAM_AUTO, type PocketsphinxNative } from './native.ts'
import type { ModelPaths } from './options.ts'

/** Bumped when what is written changes, so older files in the cache are not used. */
const FORMAT = 1

export interface SearchDictionary {
  /** The file decoders load as their dictionary. */
  file: string
  /** Removes the file when it is the engine's own temporary copy (a cached one stays for later processes). */
  remove: () => void
}

/** `$XDG_CACHE_HOME/dictum/pocketsphinx`, else `~/.cache/dictum/pocketsphinx`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dictumCacheDir(env), 'pocketsphinx')
}

/** A dictionary entry's word: `word(2)` is the second pronunciation of `word`. */
export function baseWord(entry: string): string {
  return entry.replace(/\(\d+\)$/u, '')
}

/** The lines of a dictionary (`word phones…`) whose word `keep` accepts, in order. */
export function pruneDictionary(text: string, keep: (word: string) => boolean): string {
  const kept: string[] = []
  for (const line of text.split('\n')) {
    const word = baseWord(line.slice(0, line.indexOf(' ')))
    if (word !== '' && keep(word)) kept.push(line.trimEnd())
  }
  return `${kept.join('\n')}\n`
}

/** The cache file of this model: named by its dictionary's and language model's path, size and time. */
function cacheFile(paths: ModelPaths, cacheDir: string): string {
  const stamp = [paths.dict, paths.lm].map((file) => {
    const stat = statSync(file)
    return [file, stat.size, stat.mtimeMs]
  })
  const key = createHash('sha256')
    .update(JSON.stringify([FORMAT, stamp]))
    .digest('hex')
    .slice(0, 20)
  return path.join(cacheDir, `${key}.dict`)
}

/** Reads the language model on its own and returns which words of `dictionary` (the file's text) it has. */
function languageModelHas(
  native: PocketsphinxNative,
  paths: ModelPaths,
  dictionary: string,
): (word: string) => boolean {
  // The library's log goes nowhere, as a decoder's does (decoder.ts `-logfn`).
  native.err_set_logfile('/dev/null')
  const argv = ['-hmm', paths.hmm, '-lm', paths.lm, '-dict', paths.dict]
  const config = native.cmd_ln_parse_r(null, native.ps_args(), argv.length, argv, 1)
  const logmath = native.logmath_init(1.0001, 0, 0)
  const model = config && logmath ? native.ngram_model_read(config, paths.lm, NGRAM_AUTO, logmath) : null
  try {
    if (!model) throw new Error(`pocketsphinx could not read the language model ${paths.lm}`)
    const unknown = native.ngram_unknown_wid(model)
    const words = new Set<string>()
    for (const line of dictionary.split('\n')) {
      const word = baseWord(line.slice(0, line.indexOf(' ')))
      if (word !== '' && !words.has(word) && native.ngram_wid(model, word) !== unknown) words.add(word)
    }
    return (word) => words.has(word)
  } finally {
    if (model) native.ngram_model_free(model)
    if (logmath) native.logmath_free(logmath)
    if (config) native.cmd_ln_free_r(config)
  }
}

/**
 * The dictionary for this model's decoders: from the cache when written before, else made now and written
 * there (or, when the cache cannot be written, to a temporary file the engine removes when it closes).
 */
export function searchDictionary(
  native: PocketsphinxNative,
  paths: ModelPaths,
  cacheDir: string = defaultCacheDir(),
): SearchDictionary {
  const cached = cacheFile(paths, cacheDir)
  const kept = { file: cached, remove: () => {} }
  try {
    statSync(cached)
    return kept
  } catch {
    // Not written yet: made below.
  }
  const dictionary = readFileSync(paths.dict, 'utf8')
  const text = pruneDictionary(dictionary, languageModelHas(native, paths, dictionary))
  if (writeCacheFile(cached, text)) return kept
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-pocketsphinx-'))
  const file = path.join(dir, 'search.dict')
  writeFileSync(file, text)
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
