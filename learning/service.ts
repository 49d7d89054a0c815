/**
 * Learning from corrections: a correction is stored on its history entry, its mishearings become
 * suggestions (suggest.ts), a suggestion is replayed on the kept recordings (replay.ts), and accepted into
 * the dictionary (one transaction with its new state) or dismissed. Nothing learned leaves the machine:
 * everything here reads and writes the local database and runs the local engines.
 */
import type { DictionaryService } from '../dictionary/service.ts'
import type { HistoryEntry } from '../history/schemas.ts'
import type { HistoryService } from '../history/service.ts'
import type { ConfigStore } from '../kernel/config-store.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import type { EngineRegistry } from '../kernel/registry.ts'
import { isWellFormedText } from '../lib/validate.ts'
import type { Db } from '../storage/database.ts'
import { writeTransaction } from '../storage/write.ts'
import type { TranscriptionService } from '../transcription/service.ts'
import { learningErrors } from './errors.ts'
import { Pronouncer } from './phones.ts'
import { replayEntries, replaySuggestion } from './replay.ts'
import { MAX_CORRECTION_LENGTH, type Suggestion } from './schemas.ts'
import { SuggestionStore } from './store.ts'
import { proposals } from './suggest.ts'

interface Deps {
  db: Db
  history: HistoryService
  dictionary: DictionaryService
  transcription: TranscriptionService
  engines: EngineRegistry
  configStore: ConfigStore
  logger: PluginLogger
}

export class LearningService {
  readonly #deps: Deps
  readonly #store: SuggestionStore
  /** By dictionary file ('' for none): each reads its dictionary once. */
  readonly #pronouncers = new Map<string, Pronouncer>()
  /** Replays run one at a time: they are background work, dictation goes first. */
  #replaying: Promise<unknown> = Promise.resolve()
  /** Auto-accepts running (replay, then accept). */
  readonly #background = new Set<Promise<void>>()

  constructor(deps: Deps) {
    this.#deps = deps
    this.#store = new SuggestionStore(deps.db)
  }

  /** POST /v1/history/{id}/correction: stores the text, answers the entry and the suggestions it made. */
  async correct(id: string, body: unknown): Promise<{ entry: HistoryEntry; suggestions: Suggestion[] }> {
    const text = correctionText(body)
    const entry = await this.#deps.history.correct(id, text)
    const customWords = await this.#takesCustomWords(entry.engine)
    const found = await proposals(
      { heard: entry.rawText, meant: text, customWords },
      this.#pronouncerFor(entry.engine),
    )
    const now = Date.now()
    const suggestions =
      found.length === 0
        ? []
        : await writeTransaction(this.#deps.db, () =>
            found.map((proposal) => this.#store.record(proposal, entry.id, entry.engine, now)),
          )
    if (this.#deps.configStore.current.learning.autoAccept) {
      for (const suggestion of suggestions.filter((s) => s.state === 'pending'))
        this.#autoAccept(suggestion.id)
    }
    return { entry, suggestions }
  }

  list(): { count: number; items: Suggestion[] } {
    const items = this.#store.list()
    return { count: items.length, items }
  }

  get(id: string): Suggestion {
    const found = this.#store.get(id)
    if (!found)
      throw learningErrors.SUGGESTION_NOT_FOUND(JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}…` : id))
    return found
  }

  /** POST …/{id}/replay: transcribes the recordings again, stores and answers the suggestion with `replay`. */
  replay(id: string, signal?: AbortSignal): Promise<Suggestion> {
    const run = this.#replaying.then(() => this.#replayNow(id, signal))
    this.#replaying = run.catch(() => {})
    return run
  }

  async #replayNow(id: string, signal?: AbortSignal): Promise<Suggestion> {
    const suggestion = this.get(id)
    const { replaySample, replayMaxSeconds } = this.#deps.configStore.current.learning
    if (replayEntries(suggestion, this.#deps.history, replaySample).length === 0) {
      throw learningErrors.REPLAY_NO_RECORDINGS('no recording of this engine is kept (history.keepAudio).')
    }
    const replay = await replaySuggestion(
      suggestion,
      this.#deps,
      { sample: replaySample, maxSeconds: replayMaxSeconds },
      signal,
    )
    await writeTransaction(this.#deps.db, () => this.#store.setReplay(suggestion.id, replay, Date.now()))
    return this.get(suggestion.id)
  }

  /** POST …/{id}/accept: the entry joins the dictionary and the suggestion is accepted, in one transaction. */
  async accept(id: string): Promise<Suggestion> {
    const suggestion = this.#pending(id)
    await this.#deps.dictionary.appendEntry(suggestion.kind, suggestion.entry, () =>
      this.#store.setState(suggestion.id, 'accepted', Date.now()),
    )
    return this.get(suggestion.id)
  }

  async dismiss(id: string): Promise<Suggestion> {
    const suggestion = this.#pending(id)
    await writeTransaction(this.#deps.db, () => this.#store.setState(suggestion.id, 'dismissed', Date.now()))
    return this.get(suggestion.id)
  }

  /** Waits for the replays started so far (tests, closing). */
  async idle(): Promise<void> {
    await Promise.all([this.#replaying, ...this.#background])
  }

  #pending(id: string): Suggestion {
    const suggestion = this.get(id)
    if (suggestion.state !== 'pending') throw learningErrors.SUGGESTION_NOT_PENDING(suggestion.state)
    return suggestion
  }

  /** `learning.autoAccept`: replayed in the background, accepted when it fixes one or more and breaks none. */
  #autoAccept(id: string): void {
    const work = this.replay(id)
      .then(async (replayed) => {
        const { replay } = replayed
        if (replay && replay.fixed > 0 && replay.broken === 0 && replayed.state === 'pending') {
          await this.accept(id)
          this.#deps.logger.info({ suggestion: id }, 'a suggestion learned from a correction was accepted')
        }
      })
      .catch((err: unknown) =>
        this.#deps.logger.warn(
          { suggestion: id, error: (err as Error).message },
          'auto-accept replay failed',
        ),
      )
    this.#background.add(work)
    void work.finally(() => this.#background.delete(work))
  }

  async #takesCustomWords(engine: string | null): Promise<boolean> {
    if (!engine) return false
    try {
      return (await this.#deps.engines.status(engine)).capabilities.customWords === true
    } catch {
      return false
    }
  }

  /** Pronunciations by `learning.pronunciations`, else the dictionary of the engine's model, else espeak-ng. */
  #pronouncerFor(engine: string | null): Pronouncer {
    const file = this.#deps.configStore.current.learning.pronunciations ?? this.#engineDictionary(engine)
    let pronouncer = this.#pronouncers.get(file ?? '')
    if (!pronouncer) {
      pronouncer = new Pronouncer(file)
      this.#pronouncers.set(file ?? '', pronouncer)
    }
    return pronouncer
  }

  #engineDictionary(engine: string | null): string | null {
    if (!engine) return null
    try {
      return this.#deps.engines.pronunciationDictionary(engine)
    } catch {
      // An engine no longer configured (or its options now invalid): espeak-ng spells the words.
      return null
    }
  }
}

function correctionText(body: unknown): string {
  const text = (body as { text?: unknown } | null)?.text
  if (typeof text !== 'string') throw learningErrors.INVALID_CORRECTION('text must be a string.')
  if (!isWellFormedText(text)) throw learningErrors.INVALID_CORRECTION('text is not valid Unicode text.')
  if (text.length > MAX_CORRECTION_LENGTH)
    throw learningErrors.INVALID_CORRECTION(`text is longer than ${MAX_CORRECTION_LENGTH} characters.`)
  if (text.trim() === '') throw learningErrors.INVALID_CORRECTION('text is empty.')
  return text
}
