/**
 * The transcription pipeline shared by /v1/transcribe, /v1/dictate, the OpenAI-compatible route and the CLI:
 * decode (streaming) → VAD → engine, piece by piece → join → dictionary replacements.
 *
 * Audio that fits the engine's window goes to the engine whole (after VAD has confirmed it holds speech);
 * longer audio is cut at pauses into pieces no longer than the window and streamed through, so memory stays
 * bounded whatever the length. Without a VAD model, long audio is cut at fixed lengths.
 */

import { setImmediate as nextTurn } from 'node:timers/promises'
import { type AudioSource, concatSamples, TARGET_SAMPLE_RATE } from '../audio/index.ts'
import type { AudioService } from '../audio/service.ts'
import type { DictionaryService } from '../dictionary/service.ts'
import { errors } from '../errors/catalogue.ts'
import type { ConfigStore } from '../kernel/config-store.ts'
import type {
  EngineCustomWord,
  EngineTranscribeResult,
  TranscriptSegment,
  TranscriptToken,
  TranscriptWord,
} from '../kernel/contracts/engine.ts'
import type { SlotPriority } from '../kernel/engine-runner/types.ts'
import type { AcquiredEngine, EngineRegistry } from '../kernel/registry.ts'
import { maxSegmentSecondsFor } from '../vad/index.ts'
import type { VadService } from '../vad/service.ts'
import type { VadTuning } from '../vad/vad-segmenter.ts'
import { engineCustomWords } from './custom-words.ts'
import { mapInOrder } from './in-order.ts'
import { joinPieces, type PieceResult } from './join.ts'
import { detectedLanguages } from './languages.ts'

const SAMPLE_RATE = TARGET_SAMPLE_RATE
/** The window used for engines that declare no limit: long audio is still cut, to bound memory. */
const DEFAULT_WINDOW_SECONDS = 120
const DECODE_CHUNK_SECONDS = 5

export interface TranscribeOptions {
  signal?: AbortSignal
  language?: string
  prompt?: string
  /** Use this engine instead of the selected one (OpenAI route `model`). */
  engineId?: string
  /** With `engineId`: this catalog model instead of the one the engine's options name. */
  model?: string
  /**
   * Called with each piece, in order, as soon as the engine has transcribed it: streamed transcriptions send
   * its text, jobs report progress with its end.
   */
  onPiece?: (piece: TranscribedPiece) => void
  /** `low` for batch work (transcription jobs): requests to the engine wait behind dictation's. */
  priority?: SlotPriority
  /** Custom words of this request only, beside the dictionary's (OpenAI's `keywords`). */
  customWords?: readonly EngineCustomWord[]
  /** Languages the audio may be in (OpenAI's `languages`): the engine must transcribe one of them. */
  languages?: readonly string[]
  /** `translate`: English text (engines with the `translate` capability; OpenAI's translations route). */
  task?: 'transcribe' | 'translate'
  /**
   * Cut the audio with the VAD whatever its length, with these values (OpenAI's `chunking_strategy`);
   * absent or null: whole when it fits the engine, else at pauses.
   */
  chunking?: VadTuning | null
  /** Called with the decoded audio (16 kHz mono) as it comes, in order: a dictation keeps its recording. */
  onSamples?: (samples: Float32Array) => void
  /** Called with the engine before any audio reaches it: a request's checks against its capabilities. */
  onEngine?: (engine: AcquiredEngine) => void | Promise<void>
}

export interface TranscribedPiece {
  /** The engine's text of the piece, before replacements. */
  text: string
  /** Seconds from the start of the audio. */
  startSeconds: number
  seconds: number
  /** False for a piece the VAD found no speech in: its text is not part of the transcript. */
  speech: boolean
}

/** A finished transcription. Times are seconds from the start of the audio. */
export interface Transcript {
  /** The transcript with dictionary replacements applied. */
  text: string
  /** The engine's words, before replacements. */
  rawText: string
  /** 0..1; see docs/transcription.md for engines that report none. */
  confidence: number
  /** 16 kHz mono samples decoded. */
  sampleCount: number
  /** Display name of the engine (spec 2.5 `provider`). */
  provider: string
  engine: string
  durationSeconds: number
  segments: TranscriptSegment[]
  words: TranscriptWord[] | null
  language: string | null
  /** The engine's tokens with log-probabilities (logprobs.ts), null when it gave no certainty. */
  tokens: TranscriptToken[] | null
  /**
   * OpenAI's `languages` (languages.ts), where the transcription knew its engine: the one
   * formatter writes it into `verbose_json`, so `dictum transcribe` and the OpenAI route write one document.
   */
  languages?: Array<{ code: string }>
}

interface Deps {
  audio: AudioService
  vad: VadService
  engines: EngineRegistry
  dictionary: DictionaryService
  configStore: ConfigStore
}

export class TranscriptionService {
  readonly #deps: Deps

  constructor(deps: Deps) {
    this.#deps = deps
  }

  async transcribe(source: AudioSource, options: TranscribeOptions = {}): Promise<Transcript> {
    const { audio, engines } = this.#deps
    // The model loads while the audio decodes; a decode error wins over an engine error.
    const acquiring = engines.acquire(options.engineId, options.model)
    acquiring.catch(() => {})
    const stream = audio.decoder.stream(source, { chunkSeconds: DECODE_CHUNK_SECONDS }, options.signal)
    const iterator = stream[Symbol.asyncIterator]()
    try {
      return await this.#transcribeStream(iterator, acquiring, options)
    } finally {
      // Stops ffmpeg and removes temp files at once when anything fails midway.
      await iterator.return?.(undefined)
      // Done with the engine (used or not): an engine a config edit replaced closes after its last request.
      acquiring.then(
        (engine) => engine.release(),
        () => {},
      )
    }
  }

  /**
   * Where the pipeline would cut `source` for the engine (the pieces {@link transcribe} sends, silence left
   * out), without transcribing: a long file's pieces can then run anywhere (transcription jobs fan out) and
   * be joined with {@link joinPieces} into the transcript `transcribe` gives.
   */
  async planPieces(source: AudioSource, options: TranscribeOptions = {}): Promise<PiecePlan> {
    const { audio, engines } = this.#deps
    const engine = await engines.acquire(options.engineId, options.model)
    try {
      checkLanguage(options.language, engine)
      const window = maxSegmentSecondsFor(
        this.#deps.configStore.current.vad.maxSegmentSeconds,
        engine.capabilities.maxAudioSeconds ?? DEFAULT_WINDOW_SECONDS,
      )
      const counted = { samples: 0 }
      const stream = audio.decoder.stream(source, { chunkSeconds: DECODE_CHUNK_SECONDS }, options.signal)
      const spans: PieceSpan[] = []
      const cut = { signal: options.signal, tuning: null }
      for await (const piece of this.#pieces(countSamples(stream, counted), window, cut)) {
        if (!(await piece.speech)) continue
        spans.push({ start: Math.round(piece.startSeconds * SAMPLE_RATE), length: piece.samples.length })
      }
      return { pieces: spans, sampleCount: counted.samples, engine: engine.id, provider: engine.displayName }
    } finally {
      engine.release()
    }
  }

  /** The engine's results for these pieces of `source` (from {@link planPieces}), in their order. */
  async transcribePieces(
    source: AudioSource,
    spans: readonly PieceSpan[],
    options: TranscribeOptions = {},
  ): Promise<PieceResult[]> {
    const { audio, engines } = this.#deps
    const engine = await engines.acquire(options.engineId, options.model)
    const stream = audio.decoder.stream(source, { chunkSeconds: DECODE_CHUNK_SECONDS }, options.signal)
    try {
      const results: PieceResult[] = []
      for await (const { span, samples } of cutSpans(stream, spans)) {
        const startSeconds = span.start / SAMPLE_RATE
        const result = await this.#run(engine, samples, startSeconds, options)
        results.push({ result, startSeconds, seconds: samples.length / SAMPLE_RATE })
      }
      return results
    } finally {
      await stream.return(undefined)
      engine.release()
    }
  }

  /** Joins piece results (of every part of a planned file, in order) as {@link transcribe} does. */
  joinPieces(pieces: readonly PieceResult[], plan: Omit<PiecePlan, 'pieces'>): Transcript {
    const joined = joinPieces(pieces, (text) => this.#deps.dictionary.applyReplacements(text))
    return {
      ...joined,
      sampleCount: plan.sampleCount,
      provider: plan.provider,
      engine: plan.engine,
      durationSeconds: plan.sampleCount / SAMPLE_RATE,
    }
  }

  async #transcribeStream(
    iterator: AsyncIterator<Float32Array>,
    acquiring: Promise<AcquiredEngine>,
    options: TranscribeOptions,
  ): Promise<Transcript> {
    const first = await iterator.next()
    const engine = await acquiring
    checkLanguage(options.language, engine)
    const language = options.languages ? languageAmong(options.languages, engine) : options.language
    await options.onEngine?.(engine)
    const window = maxSegmentSecondsFor(
      this.#deps.configStore.current.vad.maxSegmentSeconds,
      engine.capabilities.maxAudioSeconds ?? DEFAULT_WINDOW_SECONDS,
    )
    const counted = { samples: 0 }
    const chunks = countSamples(prepend(first, iterator), counted, options.onSamples)
    const pieces: PieceResult[] = []
    // A long file's pieces run on every slot of the engine at once (twice as many outstanding, so a slot
    // freed early finds the next piece waiting), joined in order. They wait at low priority: a dictation
    // arriving meanwhile takes the next free slot, not the place after the file's remaining pieces.
    const cut = { signal: options.signal, tuning: options.chunking ?? null }
    await mapInOrder(
      this.#pieces(chunks, window, cut),
      engine.concurrency * 2,
      async (piece, signal) => {
        const priority = piece.cut ? 'low' : options.priority
        // The VAD's speech check of a short recording runs beside the engine, not before it.
        const [result, speech] = await Promise.all([
          this.#run(engine, piece.samples, piece.startSeconds, { ...options, language, signal, priority }),
          piece.speech,
        ])
        return {
          result,
          speech,
          startSeconds: piece.startSeconds,
          seconds: piece.samples.length / SAMPLE_RATE,
        }
      },
      ({ result, speech, startSeconds, seconds }) => {
        if (speech) pieces.push({ result, startSeconds, seconds })
        options.onPiece?.({ text: speech ? result.text : '', startSeconds, seconds, speech })
      },
      options.signal,
    )
    const transcript = this.joinPieces(pieces, {
      sampleCount: counted.samples,
      provider: engine.displayName,
      engine: engine.id,
    })
    return { ...transcript, languages: detectedLanguages(transcript, engine.capabilities.languages) }
  }

  /**
   * Whole audio when it fits the window (with `speech` telling whether the VAD hears any: silence and noise
   * give no text), else VAD pieces (speech by construction) or fixed cuts.
   */
  async *#pieces(
    chunks: AsyncIterable<Float32Array>,
    window: number,
    { signal, tuning }: { signal: AbortSignal | undefined; tuning: VadTuning | null },
  ): AsyncGenerator<Piece> {
    const limit = Math.floor(window * SAMPLE_RATE)
    const head: Float32Array[] = []
    let buffered = 0
    const iterator = chunks[Symbol.asyncIterator]()
    let next = await iterator.next()
    while (!next.done && buffered + next.value.length <= limit) {
      head.push(next.value)
      buffered += next.value.length
      next = await iterator.next()
    }
    const vad = await this.#deps.vad.segmenter()
    // A request that asks for VAD cutting gets it whatever the length (when there is a VAD model).
    if (next.done && !(vad && tuning)) {
      const whole = concatSamples(head, buffered)
      if (whole.length === 0) return
      // Started on the next turn of the event loop, so the piece reaches the engine first: the check's
      // windows would otherwise interleave with the hand-over's microtasks and delay it (~0.5 ms measured).
      const speech = vad
        ? nextTurn().then(() =>
            vad.hasSpeech(whole, { maxSegmentSeconds: window, ...(signal ? { signal } : {}) }),
          )
        : SPEECH
      yield { samples: whole, startSeconds: 0, speech, cut: false }
      return
    }
    const rest = (async function* () {
      yield* head
      if (!next.done) yield next.value
      for (let n = await iterator.next(); !n.done; n = await iterator.next()) yield n.value
    })()
    const cut = vad
      ? vad.segment(rest, {
          maxSegmentSeconds: window,
          ...(signal ? { signal } : {}),
          ...(tuning ? { tuning } : {}),
        })
      : fixedCuts(rest, limit)
    for await (const piece of cut) yield { ...piece, speech: SPEECH, cut: true }
  }

  async #run(
    engine: AcquiredEngine,
    samples: Float32Array,
    offsetSeconds: number,
    options: TranscribeOptions,
  ) {
    const customWords = engineCustomWords(engine.capabilities, this.#deps.dictionary, options.customWords)
    const result: EngineTranscribeResult = await engine.runner.transcribe(
      {
        samples,
        customWords,
        offsetSeconds,
        ...(options.language ? { language: options.language } : {}),
        ...(options.languages ? { languages: [...options.languages] } : {}),
        ...(options.prompt ? { prompt: options.prompt } : {}),
        ...(options.task === 'translate' ? { task: 'translate' as const } : {}),
      },
      options.signal,
      options.priority,
    )
    return result
  }
}

/** A piece of a recording, in 16 kHz samples from its start. */
export interface PieceSpan {
  start: number
  length: number
}

/** How {@link TranscriptionService.planPieces} cut a recording. */
export interface PiecePlan {
  /** In order, not overlapping; silence between them is left out. */
  pieces: PieceSpan[]
  /** 16 kHz samples in the whole recording. */
  sampleCount: number
  engine: string
  provider: string
}

/** The samples of each span (sorted, not overlapping) of a decoded stream; stops reading after the last. */
async function* cutSpans(
  chunks: AsyncIterable<Float32Array>,
  spans: readonly PieceSpan[],
): AsyncGenerator<{ span: PieceSpan; samples: Float32Array }> {
  let index = 0
  let at = 0
  let filling: Float32Array | null = null
  for await (const chunk of chunks) {
    const end = at + chunk.length
    while (index < spans.length) {
      const span = spans[index]!
      const from = Math.max(span.start, at)
      const to = Math.min(span.start + span.length, end)
      if (from >= end) break
      filling ??= new Float32Array(span.length)
      if (to > from) filling.set(chunk.subarray(from - at, to - at), from - span.start)
      if (span.start + span.length > end) break
      yield { span, samples: filling }
      filling = null
      index++
    }
    at = end
    if (index === spans.length) return
  }
  if (index < spans.length)
    throw errors.AUDIO_DECODE_FAILED('the audio is shorter than when its pieces were planned.')
}

interface Piece {
  samples: Float32Array
  startSeconds: number
  /** Whether the piece holds speech (settles while the engine works on it). */
  speech: Promise<boolean>
  /** One of several pieces of a long recording (false: the whole recording). */
  cut: boolean
}

const SPEECH = Promise.resolve(true)

async function* prepend(
  first: IteratorResult<Float32Array>,
  rest: AsyncIterator<Float32Array>,
): AsyncGenerator<Float32Array> {
  if (first.done) return
  yield first.value
  for (let n = await rest.next(); !n.done; n = await rest.next()) yield n.value
}

async function* countSamples(
  chunks: AsyncIterable<Float32Array>,
  into: { samples: number },
  onSamples?: (samples: Float32Array) => void,
) {
  for await (const chunk of chunks) {
    into.samples += chunk.length
    onSamples?.(chunk)
    yield chunk
  }
}

async function* fixedCuts(chunks: AsyncIterable<Float32Array>, limit: number) {
  let parts: Float32Array[] = []
  let length = 0
  let start = 0
  for await (let chunk of chunks) {
    while (length + chunk.length >= limit) {
      const take = limit - length
      parts.push(chunk.subarray(0, take))
      yield { samples: concatSamples(parts, limit), startSeconds: start / SAMPLE_RATE }
      start += limit
      chunk = chunk.subarray(take)
      parts = []
      length = 0
    }
    if (chunk.length > 0) {
      parts.push(chunk.slice())
      length += chunk.length
    }
  }
  if (length > 0) yield { samples: concatSamples(parts, length), startSeconds: start / SAMPLE_RATE }
}

/** A language hint the engine cannot transcribe is an error, not a transcript in the model's own language. */
export function checkLanguage(language: string | undefined, engine: AcquiredEngine): void {
  const { languages } = engine.capabilities
  if (language === undefined || languages.includes('*')) return
  const base = (code: string) => code.toLowerCase().split(/[-_]/)[0]
  if (languages.some((l) => base(l) === base(language))) return
  throw errors.INVALID_REQUEST(
    `language "${language}" is not one ${engine.displayName} transcribes (it does: ${languages.join(', ')}).`,
    { extra: { param: 'language' } },
  )
}

/**
 * The language hint for OpenAI's `languages`: the first one the engine transcribes (none for an engine of
 * every language given several: it detects which), else a 400 naming the engine's languages.
 */
export function languageAmong(
  languages: readonly string[],
  engine: Pick<AcquiredEngine, 'capabilities' | 'displayName'>,
): string | undefined {
  const own = engine.capabilities.languages
  if (own.includes('*')) return languages.length === 1 ? languages[0] : undefined
  const base = (code: string) => code.toLowerCase().split(/[-_]/)[0]
  const found = languages.find((l) => own.some((o) => base(o) === base(l)))
  if (found !== undefined) return found
  throw errors.INVALID_REQUEST(
    `none of the languages ${languages.join(', ')} is one ${engine.displayName} transcribes (it does: ${own.join(', ')}).`,
    { extra: { param: 'languages' } },
  )
}
