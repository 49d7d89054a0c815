/**
 * Recording for `dictum dictate`: audio is kept from the first sample until the speaker pauses (trailing
 * silence of at least `silenceSeconds` after speech, found by the Silero VAD), the caller stops it (Ctrl-C),
 * the source ends, or `maxSeconds` is reached. A microphone and a file (`--input`) go through the same code.
 */

import { concatSamples } from '../audio/samples.ts'
import type { VadSegmenter } from '../vad/index.ts'

const SAMPLE_RATE = 16000

export type StopReason = 'pause' | 'stopped' | 'limit' | 'end'

export interface Recording {
  samples: Float32Array
  stoppedBy: StopReason
  /** True when the VAD heard speech (always false without a VAD). */
  heardSpeech: boolean
}

export interface RecordOptions {
  /** A segmenter opened with `minSilenceSeconds` = the pause that ends the recording; null: no VAD. */
  vad: VadSegmenter | null
  maxSeconds: number
  /** Ends the recording; what was heard so far is kept. */
  stop: AbortSignal
  /** Aborts the recording (throws). */
  signal: AbortSignal
  /** Called once, when the first audio arrives. */
  onAudio?: () => void
}

export async function recordUntilPause(
  source: AsyncIterable<Float32Array>,
  options: RecordOptions,
): Promise<Recording> {
  const tape = new Tape(options)
  let heardSpeech = false
  if (options.vad === null) {
    for await (const _ of tape.record(source)) options.signal.throwIfAborted()
  } else {
    const pieces = options.vad.segment(tape.record(source), {
      maxSegmentSeconds: options.maxSeconds + 1,
      signal: options.signal,
    })
    for await (const _ of pieces) {
      heardSpeech = true
      // A piece completed while audio still flows is speech followed by the pause: stop here.
      if (!tape.ended) tape.stoppedBy = 'pause'
      break
    }
  }
  options.signal.throwIfAborted()
  return { samples: tape.samples(), stoppedBy: tape.stoppedBy, heardSpeech }
}

/** Keeps every sample passed on, up to the limit, and says why the audio stopped flowing. */
class Tape {
  readonly #options: RecordOptions
  readonly #limit: number
  readonly #chunks: Float32Array[] = []
  #length = 0
  stoppedBy: StopReason = 'end'
  /** The source stopped flowing (end, limit or stop); later VAD pieces are its flush, not a pause. */
  ended = false

  constructor(options: RecordOptions) {
    this.#options = options
    this.#limit = Math.max(1, Math.round(options.maxSeconds * SAMPLE_RATE))
  }

  async *record(source: AsyncIterable<Float32Array>): AsyncGenerator<Float32Array> {
    const { stop, signal, onAudio } = this.#options
    for await (const chunk of source) {
      signal.throwIfAborted()
      if (stop.aborted) break
      if (this.#length === 0) onAudio?.()
      const room = this.#limit - this.#length
      const part = chunk.length > room ? chunk.slice(0, room) : chunk.slice()
      this.#chunks.push(part)
      this.#length += part.length
      yield part
      if (this.#length >= this.#limit) {
        this.stoppedBy = 'limit'
        break
      }
    }
    if (stop.aborted && this.stoppedBy === 'end') this.stoppedBy = 'stopped'
    this.ended = true
  }

  samples(): Float32Array {
    return concatSamples(this.#chunks, this.#length)
  }
}
