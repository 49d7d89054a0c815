/**
 * The kernel's voice activity detection: cuts 16 kHz mono audio at pauses into pieces no longer than a
 * limit, drops silence and noise, and streams (a two-hour recording passes through in bounded memory).
 *
 * It runs in the API process: Silero is small and fast (about 4 ms per second of audio), and the only way
 * it takes the process down is a bad model file, which {@link VadSegmenter.open} rules out first (see
 * vad-model.ts). Work is handed back to the event loop every couple of seconds of audio.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Static } from '@sinclair/typebox'
import { errors } from '../errors/catalogue.ts'
import type { VadSchema } from './config.ts'
import { createNativeVad, type NativeVad } from './native.ts'
import { RecentSamples } from './recent-samples.ts'
import { resolveVadModel, type VadModelLocation, verifyVadModel } from './vad-model.ts'
import { SAMPLE_RATE, type SpeechPiece, VadRun, WINDOW } from './vad-run.ts'

export type { SpeechPiece } from './vad-run.ts'

export type VadConfig = Static<typeof VadSchema>

export interface OpenVadOptions {
  /** `<dataDir>/models`, where catalog models are installed. */
  modelsDir: string
  /** Model used when neither config nor catalog provides one (the one dictum ships in assets/silero-vad). */
  fallbackModel?: string
}

export interface SegmentOptions {
  /** Longest piece, in seconds. */
  maxSegmentSeconds: number
  signal?: AbortSignal
  /** A request's own values in place of config `vad`'s (OpenAI's `chunking_strategy`). */
  tuning?: VadTuning
}

/** A request's VAD values (OpenAI's `server_vad` chunking): each absent one is config `vad`'s. */
export interface VadTuning {
  /** Speech probability a window needs, 0..1 (kept within config `vad.threshold`'s range). */
  threshold?: number
  /** A pause at least this long ends a piece (kept within config `vad.minSilenceSeconds`'s range). */
  minSilenceSeconds?: number
  /** Audio before each piece's detected start added to it (never reaching into the piece before). */
  paddingSeconds?: number
}

/** Windows between two returns to the event loop (about 2 s of audio). */
const WINDOWS_PER_TURN = 64
/** Idle detectors kept per piece limit. */
const IDLE_DETECTORS = 2

/** The piece limit: config `vad.maxSegmentSeconds`, else the engine's limit, else 30 s; never above the engine's. */
export function maxSegmentSecondsFor(configured: number | null, engineMax: number | null): number {
  const wanted = configured ?? engineMax ?? 30
  return engineMax === null ? wanted : Math.min(wanted, engineMax)
}

async function* windowsOf(input: AsyncIterable<Float32Array> | Float32Array): AsyncGenerator<Float32Array> {
  if (input instanceof Float32Array) {
    for (let at = 0; at < input.length; at += WINDOW)
      yield input.subarray(at, Math.min(at + WINDOW, input.length))
    return
  }
  let pending = new Float32Array(0)
  for await (const chunk of input) {
    let at = 0
    if (pending.length > 0) {
      at = Math.min(WINDOW - pending.length, chunk.length)
      const joined = new Float32Array(pending.length + at)
      joined.set(pending, 0)
      joined.set(chunk.subarray(0, at), pending.length)
      pending = joined
      if (pending.length < WINDOW) continue
      yield pending
      pending = new Float32Array(0)
    }
    for (; at + WINDOW <= chunk.length; at += WINDOW) yield chunk.subarray(at, at + WINDOW)
    pending = chunk.slice(at)
  }
  if (pending.length > 0) yield pending
}

export class VadSegmenter {
  readonly model: VadModelLocation
  readonly #config: VadConfig
  /** Reset detectors kept for reuse, by piece limit and values (their config depends on them). */
  readonly #idle = new Map<string, NativeVad[]>()
  #closed = false

  private constructor(model: VadModelLocation, config: VadConfig) {
    this.model = model
    this.#config = config
  }

  /** Finds the model (config, catalog, fallback) and vets it; throws MODEL_NOT_INSTALLED / MODEL_INVALID. */
  static async open(config: VadConfig, options: OpenVadOptions): Promise<VadSegmenter> {
    const model = await resolveVadModel({
      configured: config.model,
      modelsDir: options.modelsDir,
      ...(options.fallbackModel === undefined ? {} : { fallback: options.fallbackModel }),
    })
    await verifyVadModel(model)
    return new VadSegmenter(model, config)
  }

  /** Speech pieces of `input` in order; silence and noise yield nothing. */
  async *segment(
    input: AsyncIterable<Float32Array> | Float32Array,
    options: SegmentOptions,
  ): AsyncGenerator<SpeechPiece> {
    if (this.#closed) throw errors.INTERNAL('the VAD is closed')
    const maxSamples = Math.max(WINDOW * 4, Math.floor(options.maxSegmentSeconds * SAMPLE_RATE))
    const key = this.#key(options)
    const vad = this.#take(key, options)
    const padding = Math.round((options.tuning?.paddingSeconds ?? 0) * SAMPLE_RATE)
    // A piece is handed out at most about two pieces' length after its audio was fed.
    const history = padding > 0 ? new RecentSamples(2 * maxSamples + padding + 8 * WINDOW) : null
    try {
      const run = new VadRun(vad, maxSamples, this.#minSpeechSamples())
      let windows = 0
      for await (const window of windowsOf(input)) {
        options.signal?.throwIfAborted()
        history?.push(window)
        for (const piece of run.accept(window)) yield history ? history.pad(piece, padding) : piece
        if (++windows % WINDOWS_PER_TURN === 0) await nextTurn()
      }
      for (const piece of run.finish()) yield history ? history.pad(piece, padding) : piece
    } finally {
      this.#giveBack(key, vad, options.tuning === undefined)
    }
  }

  /**
   * Whether `samples` hold any speech: stops at the first window the detector marks as speech (a fraction
   * of a full segmentation's cost), so a short recording's check can run beside the engine.
   */
  async hasSpeech(
    samples: Float32Array,
    options: { maxSegmentSeconds: number; signal?: AbortSignal },
  ): Promise<boolean> {
    if (this.#closed) throw errors.INTERNAL('the VAD is closed')
    const vad = this.#take(this.#key(options), options)
    try {
      let windows = 0
      for await (const window of windowsOf(samples)) {
        options.signal?.throwIfAborted()
        vad.acceptWaveform(window)
        if (vad.isDetected() || !vad.isEmpty()) return true
        if (++windows % WINDOWS_PER_TURN === 0) await nextTurn()
      }
      vad.flush()
      return !vad.isEmpty()
    } finally {
      this.#giveBack(this.#key(options), vad, true)
    }
  }

  /** Detectors differ by piece limit and by a request's threshold and pause. */
  #key(options: { maxSegmentSeconds: number; tuning?: VadTuning }): string {
    const { threshold, minSilenceSeconds } = this.#detectorValues(options.tuning)
    return `${options.maxSegmentSeconds}/${threshold}/${minSilenceSeconds}`
  }

  /** Config `vad`'s threshold and pause, or a request's, kept within the config schema's ranges. */
  #detectorValues(tuning: VadTuning | undefined): { threshold: number; minSilenceSeconds: number } {
    const within = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value))
    return {
      threshold: within(tuning?.threshold ?? this.#config.threshold, 0.05, 0.95),
      minSilenceSeconds: within(tuning?.minSilenceSeconds ?? this.#config.minSilenceSeconds, 0.05, 5),
    }
  }

  /** An idle detector for these values, else a new one (creating one loads the model: ~40 ms, blocking). */
  #take(key: string, options: { maxSegmentSeconds: number; tuning?: VadTuning }): NativeVad {
    return this.#idle.get(key)?.pop() ?? this.#createVad(options.maxSegmentSeconds, options.tuning)
  }

  /** `keep`: false for a request's own values, whose detectors would otherwise pile up one per value. */
  #giveBack(key: string, vad: NativeVad, keep: boolean): void {
    if (this.#closed || !keep) return
    vad.reset()
    const idle = this.#idle.get(key) ?? []
    if (idle.length < IDLE_DETECTORS) idle.push(vad)
    this.#idle.set(key, idle)
  }

  #minSpeechSamples(): number {
    return Math.round(this.#config.minSpeechSeconds * SAMPLE_RATE)
  }

  #createVad(maxSegmentSeconds: number, tuning?: VadTuning): NativeVad {
    const { threshold, minSilenceSeconds } = this.#detectorValues(tuning)
    return createNativeVad(
      {
        sileroVad: {
          model: this.model.file,
          threshold,
          minSilenceDuration: minSilenceSeconds,
          minSpeechDuration: this.#config.minSpeechSeconds,
          // past this, sherpa-onnx looks harder for a pause (threshold 0.9, 0.1 s of silence) before dictum cuts
          maxSpeechDuration: Math.max(1, maxSegmentSeconds * 0.8),
          windowSize: WINDOW,
        },
        sampleRate: SAMPLE_RATE,
        numThreads: 1,
        provider: 'cpu',
        debug: 0,
      },
      maxSegmentSeconds + 10,
    )
  }

  /** Later `segment` calls fail; idle native detectors are dropped (freed by their finalizers). */
  close(): void {
    this.#closed = true
    this.#idle.clear()
  }
}
