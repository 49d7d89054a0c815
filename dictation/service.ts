/**
 * The whole dictation (docs/api-decisions.md): decode → engine → replacements → editing by voice (the
 * dictation stage, `dictation.commands`) → AI enhancement (when a provider is selected) → history entry, which
 * keeps the engine's text (replacements applied) as `rawText` beside the result. Enhancement failing never
 * loses the dictation: the entry keeps the edited text as finalText and says what went wrong. Nor does
 * storing failing (database busy, disk full): the text is returned with `stored: false` and `storeError`.
 */
import { randomUUID } from 'node:crypto'
import type { AudioSource } from '../audio/index.ts'
import type { AudioService } from '../audio/service.ts'
import { finishRecording, startRecording } from '../history/recording.ts'
import type { HistoryEntry } from '../history/schemas.ts'
import { countCharacters, type HistoryService, type NewHistoryEntry } from '../history/service.ts'
import type { ConfigStore } from '../kernel/config-store.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import type { ProviderRegistry } from '../kernel/provider-registry.ts'
import type { PostprocessService } from '../postprocess/service.ts'
import { storageFailure } from '../storage/failures.ts'
import { applyDictationCommands } from '../text/commands.ts'
import type { Transcript, TranscriptionService } from '../transcription/service.ts'

export interface DictateOptions {
  appName?: string
  windowTitle?: string
  signal?: AbortSignal
}

export interface Dictation {
  entry: HistoryEntry
  /** False when nothing was stored: empty transcript, `history.enabled` false, or storing failed. */
  stored: boolean
  /** Why storing failed (a catalogue message, e.g. DATABASE_BUSY's); null when it did not fail. */
  storeError: string | null
  transcript: Transcript
}

interface Deps {
  audio: AudioService
  transcription: TranscriptionService
  postprocess: PostprocessService
  providers: ProviderRegistry
  history: HistoryService
  configStore: ConfigStore
  logger: PluginLogger
}

export class DictationService {
  readonly #deps: Deps

  constructor(deps: Deps) {
    this.#deps = deps
  }

  async dictate(source: AudioSource, options: DictateOptions = {}): Promise<Dictation> {
    const started = performance.now()
    const recording = startRecording(this.#deps.configStore.current.history)
    let transcript: Transcript
    try {
      transcript = await this.#deps.transcription.transcribe(source, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(recording ? { onSamples: (samples: Float32Array) => recording.write(samples) } : {}),
      })
    } catch (error) {
      recording?.abort()
      throw error
    }
    const audio = recording ? await finishRecording(recording, this.#deps.logger) : null
    const rawText = transcript.text
    const commands = this.#deps.configStore.current.dictation.commands
    const edited = commands ? applyDictationCommands(rawText).text : rawText
    const enhanced = await this.#postprocess(edited, { ...options, commandsApplied: commands })
    const draft = {
      rawText,
      finalText: enhanced.text ?? edited,
      appName: options.appName ?? '',
      windowTitle: options.windowTitle ?? '',
      wasAIProcessed: enhanced.text !== null,
      aiProcessingError: enhanced.error,
      durationSeconds: transcript.durationSeconds,
      processingMs: Math.round(performance.now() - started),
      engine: transcript.engine,
      provider: enhanced.text !== null ? this.#deps.providers.activeId : null,
      audio,
    }
    const { stored, error } = this.#deps.configStore.current.history.enabled
      ? await this.#store(draft)
      : { stored: null, error: null }
    const entry = stored ?? unstoredEntry(draft)
    return { entry, stored: stored !== null, storeError: error, transcript }
  }

  /** The stored entry (null for an empty transcript), or null with why storing failed. */
  async #store(draft: NewHistoryEntry): Promise<{ stored: HistoryEntry | null; error: string | null }> {
    try {
      return { stored: await this.#deps.history.record(draft), error: null }
    } catch (err) {
      const failure = storageFailure(err)
      this.#deps.logger.error(
        { code: failure.code, error: (failure.cause as Error | undefined)?.message ?? failure.message },
        'the dictation could not be stored in history; its text is returned',
      )
      return { stored: null, error: failure.message }
    }
  }

  /** The enhanced text, or null with the reason (null when enhancement was not attempted). */
  async #postprocess(
    text: string,
    options: DictateOptions & { commandsApplied: boolean },
  ): Promise<{ text: string | null; error: string | null }> {
    if (text.trim() === '' || this.#deps.providers.activeId === 'none') return { text: null, error: null }
    try {
      const result = await this.#deps.postprocess.process(text, {
        ...(options.appName ? { appName: options.appName } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        commandsApplied: options.commandsApplied,
      })
      return { text: result.text, error: null }
    } catch (err) {
      const message = (err as Error).message
      this.#deps.logger.warn({ error: message }, 'AI enhancement failed; the raw text is kept')
      return { text: null, error: message }
    }
  }
}

function unstoredEntry({
  audio: _audio,
  ...draft
}: Omit<
  HistoryEntry,
  'id' | 'timestamp' | 'originalText' | 'processedText' | 'characterCount' | 'correctedText' | 'hasAudio'
> & { audio: Buffer | null }): HistoryEntry {
  return {
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    originalText: draft.rawText,
    processedText: draft.finalText,
    characterCount: countCharacters(draft.finalText),
    correctedText: null,
    hasAudio: false,
    ...draft,
  }
}
