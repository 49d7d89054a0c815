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
import type { VadSchema } from '../config/schema.ts'
import { errors } from '../kernel/errors.ts'
import { createNativeVad, type NativeVad } from './native.ts'
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
  /** Reset detectors kept for reuse, by piece limit (their config depends on it). */
  readonly #idle = new Map<number, NativeVad[]>()
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
    const vad = this.#take(options.maxSegmentSeconds)
    try {
      const run = new VadRun(vad, maxSamples, this.#minSpeechSamples())
      let windows = 0
      for await (const window of windowsOf(input)) {
        options.signal?.throwIfAborted()
        yield* run.accept(window)
        if (++windows % WINDOWS_PER_TURN === 0) await nextTurn()
      }
      yield* run.finish()
    } finally {
      this.#giveBack(options.maxSegmentSeconds, vad)
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
    const vad = this.#take(options.maxSegmentSeconds)
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
      this.#giveBack(options.maxSegmentSeconds, vad)
    }
  }

  /** An idle detector for this limit, else a new one (creating one loads the model: ~40 ms, blocking). */
  #take(maxSegmentSeconds: number): NativeVad {
    return this.#idle.get(maxSegmentSeconds)?.pop() ?? this.#createVad(maxSegmentSeconds)
  }

  #giveBack(maxSegmentSeconds: number, vad: NativeVad): void {
    if (this.#closed) return
    vad.reset()
    const idle = this.#idle.get(maxSegmentSeconds) ?? []
    if (idle.length < IDLE_DETECTORS) idle.push(vad)
    this.#idle.set(maxSegmentSeconds, idle)
  }

  #minSpeechSamples(): number {
    return Math.round(this.#config.minSpeechSeconds * SAMPLE_RATE)
  }

  #createVad(maxSegmentSeconds: number): NativeVad {
    return createNativeVad(
      {
        sileroVad: {
          model: this.model.file,
          threshold: this.#config.threshold,
          minSilenceDuration: this.#config.minSilenceSeconds,
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
