/**
 * The live dictation service (`live` in the container): opens sessions within `realtime.maxSessions`, each
 * holding its engine (acquired at open, released at close: a config edit drains it as it does requests),
 * and closes them all when the app closes.
 */

import type { AudioService } from '../audio/service.ts'
import type { DictionaryService } from '../dictionary/service.ts'
import { errors } from '../errors/catalogue.ts'
import type { HistoryService } from '../history/service.ts'
import type { ConfigStore } from '../kernel/config-store.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import type { EngineRegistry } from '../kernel/registry.ts'
import { checkLanguage, languageAmong } from '../transcription/service.ts'
import { maxSegmentSecondsFor } from '../vad/index.ts'
import type { VadService } from '../vad/service.ts'
import { liveErrors } from './errors.ts'
import { LiveSessionImpl } from './session.ts'
import { thresholdProblem } from './turn-detector.ts'
import { TurnDetectorPool } from './turn-detector-pool.ts'
import type { LiveEventListener, LiveService, LiveSession, LiveSessionOptions, ServerVad } from './types.ts'

interface Deps {
  engines: EngineRegistry
  vad: VadService
  dictionary: DictionaryService
  history: HistoryService
  audio: AudioService
  configStore: ConfigStore
  logger: PluginLogger
}

export class LiveSessions implements LiveService {
  readonly #deps: Deps
  readonly #sessions = new Set<LiveSessionImpl>()
  /** Server VAD detectors, reused from one session to the next. */
  readonly turnDetectors = new TurnDetectorPool()
  /** Sessions open or opening (an opening one holds its place while its engine loads). */
  #count = 0
  #closed = false

  constructor(deps: Deps) {
    this.#deps = deps
  }

  get openSessions(): number {
    return this.#sessions.size
  }

  async open(options: LiveSessionOptions, listener: LiveEventListener): Promise<LiveSession> {
    if (this.#closed) throw errors.ENGINE_UNAVAILABLE('dictum is shutting down.')
    checkOptions(options)
    const { maxSessions } = this.#deps.configStore.current.realtime
    if (this.#count >= maxSessions) {
      throw liveErrors.TOO_MANY_SESSIONS(`${maxSessions} are open (realtime.maxSessions). Retry later.`)
    }
    this.#count++
    try {
      return await this.#open(options, listener)
    } catch (error) {
      this.#count--
      throw error
    }
  }

  async #open(options: LiveSessionOptions, listener: LiveEventListener): Promise<LiveSession> {
    const { engines, vad, configStore } = this.#deps
    const engine = await engines.acquire(options.engineId, options.model)
    // A streaming engine's stream host starts now and stays while the session is open, however long its
    // pauses (process-runner.ts); an engine that does not stream transcribes items whole, on its own hosts.
    const streams = engine.capabilities.streaming === true ? engine.runner.holdStreams?.() : undefined
    const releaseStreams = streams ?? (() => {})
    try {
      checkLanguage(options.language, engine)
      if (options.languages) languageAmong(options.languages, engine)
      const segmenter = await vad.segmenter()
      if (options.turnDetection && !segmenter) {
        throw errors.MODEL_NOT_INSTALLED(
          'silero-vad (turn_detection server_vad needs the voice activity detector; with vad.enabled false or no model, use turn_detection null and commit). Fix: dictum models pull silero-vad',
          { extra: { fix: 'dictum models pull silero-vad' } },
        )
      }
      const window = maxSegmentSecondsFor(null, engine.capabilities.maxAudioSeconds ?? null)
      const session: LiveSessionImpl = new LiveSessionImpl(options, listener, {
        ...this.#deps,
        turnDetectors: this.turnDetectors,
        engine,
        config: () => configStore.current,
        vadModel: segmenter?.model.file ?? null,
        hasSpeech: segmenter
          ? (samples) => segmenter.hasSpeech(samples, { maxSegmentSeconds: window })
          : null,
        onClosed: () => {
          this.#sessions.delete(session)
          this.#count--
          releaseStreams()
        },
      })
      this.#sessions.add(session)
      if (this.#closed) void session.close({ cancel: true })
      return session
    } catch (error) {
      releaseStreams()
      engine.release()
      throw error
    }
  }

  async warmUp(turnDetection: ServerVad): Promise<void> {
    const segmenter = await this.#deps.vad.segmenter()
    if (!segmenter || this.#closed) return
    const config = this.#deps.configStore.current
    // The settings a session's detector gets (session.ts), so that the first session reuses this one.
    await this.turnDetectors.warmUp({
      model: segmenter.model.file,
      threshold: turnDetection.threshold,
      silenceDurationMs: turnDetection.silenceDurationMs,
      minSpeechSeconds: config.vad.minSpeechSeconds,
      maxUtteranceSeconds: config.realtime.maxUtteranceSeconds,
      origin: 0,
    })
  }

  /** Cancels every session (the app is closing). */
  async close(): Promise<void> {
    this.#closed = true
    await Promise.allSettled([...this.#sessions].map((session) => session.close({ cancel: true })))
    await this.turnDetectors.clear()
  }
}

function checkOptions(options: LiveSessionOptions): void {
  if (options.inputSampleRate !== 16000 && options.inputSampleRate !== 24000) {
    throw errors.INVALID_REQUEST('the input sample rate must be 16000 or 24000 (PCM16 mono).', {
      extra: { param: 'input_audio_format' },
    })
  }
  const vad = options.turnDetection
  if (!vad) return
  const bad = (what: string) =>
    errors.INVALID_REQUEST(`turn_detection ${what}.`, { extra: { param: 'turn_detection' } })
  const threshold = thresholdProblem(vad.threshold)
  if (threshold) throw bad(`threshold ${threshold}`)
  if (!(vad.silenceDurationMs >= 0 && vad.silenceDurationMs <= 10_000))
    throw bad('silence_duration_ms must be between 0 and 10000')
  if (!(vad.prefixPaddingMs >= 0 && vad.prefixPaddingMs <= 10_000))
    throw bad('prefix_padding_ms must be between 0 and 10000')
}
