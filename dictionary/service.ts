/**
 * The dictionary: replacement rules and custom words, read and written live by the API, the CLI and the
 * transcription pipeline.
 */
import type { EngineCustomWord } from '../kernel/contracts/engine.ts'
import type { Db } from '../storage/database.ts'
import {
  deleteRule,
  deleteWord,
  mergeRules,
  mergeWords,
  parseRulePatch,
  parseRulesWrite,
  parseWordPatch,
  parseWordsWrite,
  patchRule,
  patchWord,
} from './merge.ts'
import { compileReplacements, type ReplacementMatcher, type Settled } from './replace.ts'
import type { CustomWord, ReplacementRule } from './schemas.ts'
import { DictionaryStore } from './store.ts'

export interface ListEnvelope<T> {
  count: number
  items: T[]
}

/** The whole dictionary, as exported and imported by `dictum dictionary export|import`. */
export interface DictionaryExport {
  replacements: ReplacementRule[]
  customWords: CustomWord[]
}

export class DictionaryService {
  readonly #store: DictionaryStore
  #matcher: { version: object; matcher: ReplacementMatcher } | null = null
  #engineWords: { version: object; words: readonly EngineCustomWord[] } | null = null
  readonly #json = new Map<'rules' | 'words', { version: object; body: string }>()

  constructor({ db }: { db: Db }) {
    this.#store = new DictionaryStore(db)
  }

  listReplacements(): ListEnvelope<ReplacementRule> {
    const items = [...this.#store.rules()]
    return { count: items.length, items }
  }

  listCustomWords(): ListEnvelope<CustomWord> {
    const items = [...this.#store.words()]
    return { count: items.length, items }
  }

  /**
   * The GET bodies, serialised once per dictionary version: the lists are read far more often than written
   * (every client poll), and the stored objects have exactly the response's fields.
   */
  listJson(which: 'rules' | 'words'): string {
    const version = this.#store.version
    const cached = this.#json.get(which)
    if (cached?.version === version) return cached.body
    const body = JSON.stringify(which === 'rules' ? this.listReplacements() : this.listCustomWords())
    this.#json.set(which, { version, body })
    return body
  }

  /** POST /v1/dictionary/replacements: validates the whole payload, then merges in one transaction. */
  async writeReplacements(body: unknown): Promise<ListEnvelope<ReplacementRule>> {
    const write = parseRulesWrite(body)
    const items = [...(await this.#store.updateRules((current) => mergeRules(current, write)))]
    return { count: items.length, items }
  }

  /** POST /v1/dictionary/custom-words: validates the whole payload, then merges in one transaction. */
  async writeCustomWords(body: unknown): Promise<ListEnvelope<CustomWord>> {
    const write = parseWordsWrite(body)
    const items = [...(await this.#store.updateWords((current) => mergeWords(current, write)))]
    return { count: items.length, items }
  }

  /**
   * Appends one entry in the shape of POST /v1/dictionary/custom-words or /replacements (checked as there)
   * and runs `alongside` (statements on another table) in the same transaction: both happen or neither.
   */
  async appendEntry(
    kind: 'customWord' | 'replacement',
    entry: unknown,
    alongside: () => void,
  ): Promise<void> {
    if (kind === 'customWord') {
      const write = parseWordsWrite({ mode: 'append', entries: [entry] })
      await this.#store.updateWords((current) => mergeWords(current, write), alongside)
    } else {
      const write = parseRulesWrite({ mode: 'append', entries: [entry] })
      await this.#store.updateRules((current) => mergeRules(current, write), alongside)
    }
  }

  /** PATCH /v1/dictionary/replacements/:id: edits one rule; answers the full list. 404 for an unknown id. */
  async patchReplacement(id: string, body: unknown): Promise<ListEnvelope<ReplacementRule>> {
    const patch = parseRulePatch(body)
    return envelope(await this.#store.updateRules((current) => patchRule(current, id, patch)))
  }

  /** DELETE /v1/dictionary/replacements/:id: answers the full list. 404 for an unknown id. */
  async deleteReplacement(id: string): Promise<ListEnvelope<ReplacementRule>> {
    return envelope(await this.#store.updateRules((current) => deleteRule(current, id)))
  }

  async patchCustomWord(id: string, body: unknown): Promise<ListEnvelope<CustomWord>> {
    const patch = parseWordPatch(body)
    return envelope(await this.#store.updateWords((current) => patchWord(current, id, patch)))
  }

  async deleteCustomWord(id: string): Promise<ListEnvelope<CustomWord>> {
    return envelope(await this.#store.updateWords((current) => deleteWord(current, id)))
  }

  /** The custom words handed to engines: without their ids, which are the API's business. */
  customWords(): readonly EngineCustomWord[] {
    const version = this.#store.version
    if (this.#engineWords?.version !== version) {
      const words = this.#store.words().map(({ text, weight, aliases }) => ({ text, weight, aliases }))
      this.#engineWords = { version, words }
    }
    return this.#engineWords.words
  }

  /** Applies the current replacement rules to a transcript. */
  applyReplacements(text: string): string {
    return this.#currentMatcher().apply(text)
  }

  /**
   * {@link applyReplacements}, and how much of the result is final whatever words follow `text` (for text
   * that is still growing: streamed transcripts).
   */
  applyReplacementsSettled(text: string): Settled {
    return this.#currentMatcher().applySettled(text)
  }

  #currentMatcher(): ReplacementMatcher {
    const version = this.#store.version
    if (this.#matcher?.version !== version) {
      this.#matcher = { version, matcher: compileReplacements(this.#store.rules()) }
    }
    return this.#matcher.matcher
  }

  export(): DictionaryExport {
    return { replacements: [...this.#store.rules()], customWords: [...this.#store.words()] }
  }

  /**
   * Imports an export file: both lists validated first (atomic), `append` with the API's rules,
   * `replace` swaps both lists.
   */
  async import(data: unknown, mode: 'append' | 'replace'): Promise<DictionaryExport> {
    const object = (data ?? {}) as Partial<Record<keyof DictionaryExport, unknown>>
    const rules = parseRulesWrite({ mode, entries: object.replacements ?? [] })
    const words = parseWordsWrite({ mode, entries: object.customWords ?? [] })
    // One transaction: both lists change together or not at all.
    const stored = await this.#store.updateBoth(
      (current) => mergeRules(current, rules),
      (current) => mergeWords(current, words),
    )
    return { replacements: [...stored.rules], customWords: [...stored.words] }
  }
}

function envelope<T>(items: readonly T[]): ListEnvelope<T> {
  return { count: items.length, items: [...items] }
}
