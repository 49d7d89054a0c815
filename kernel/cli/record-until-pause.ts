/**
 * Recording for `dictum dictate`: audio is kept from the first sample until the speaker pauses (trailing
 * silence of at least `silenceSeconds` after speech, found by the Silero VAD), the caller stops it (Ctrl-C),
 * the source ends, or `maxSeconds` is reached. A microphone and a file (`--input`) go through the same code.
 */
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
  const state = { chunks: [] as Float32Array[], length: 0, stoppedBy: 'end' as StopReason, ended: false }
  const limit = Math.max(1, Math.round(options.maxSeconds * SAMPLE_RATE))
  async function* kept(): AsyncGenerator<Float32Array> {
    for await (const chunk of source) {
      options.signal.throwIfAborted()
      if (options.stop.aborted) {
        state.stoppedBy = 'stopped'
        break
      }
      if (state.length === 0) options.onAudio?.()
      const part = chunk.length > limit - state.length ? chunk.slice(0, limit - state.length) : chunk.slice()
      state.chunks.push(part)
      state.length += part.length
      yield part
      if (state.length >= limit) {
        state.stoppedBy = 'limit'
        break
      }
    }
    if (options.stop.aborted && state.stoppedBy === 'end') state.stoppedBy = 'stopped'
    state.ended = true
  }
  let heardSpeech = false
  if (options.vad === null) {
    for await (const _ of kept()) options.signal.throwIfAborted()
  } else {
    const pieces = options.vad.segment(kept(), {
      maxSegmentSeconds: options.maxSeconds + 1,
      signal: options.signal,
    })
    for await (const _ of pieces) {
      heardSpeech = true
      // A piece completed while audio still flows means speech followed by the pause: stop here.
      if (!state.ended) state.stoppedBy = 'pause'
      break
    }
  }
  options.signal.throwIfAborted()
  return { samples: concat(state.chunks, state.length), stoppedBy: state.stoppedBy, heardSpeech }
}

function concat(parts: Float32Array[], length: number): Float32Array {
  const out = new Float32Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
