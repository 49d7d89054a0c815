/**
 * Streaming (online) sherpa-onnx models: one utterance on one sherpa-onnx stream. The same steps serve a
 * live utterance (chunks as they come) and a whole piece (`transcribe` feeds it at once), so both give the
 * same text for the same audio: the encoder consumes fixed chunks of feature frames however the audio
 * arrived.
 */
import type { EnginePartial, EngineStream, EngineTranscribeResult } from '../../sdk/plugin.ts'
import {
  type OfflineRecognizerResult,
  type OnlineRecognizer,
  type OnlineStream,
  onlineResultJson,
} from './native.ts'
import { hasInvalidScores, parseResult } from './result.ts'

const SAMPLE_RATE = 16000
/**
 * Silence appended before the end of input: the encoder decodes whole chunks with some right context, so
 * the last words only come out once that much audio follows them (sherpa-onnx's own examples pad 0.66 s).
 */
const TAIL_PADDING = new Float32Array(Math.round(0.66 * SAMPLE_RATE))

/** The online result's fields (`ys_probs` are per-token log-probabilities), as the offline result names them. */
interface OnlineResultJson extends OfflineRecognizerResult {
  ys_probs?: number[]
}

export interface OnlineDecoded {
  result: OfflineRecognizerResult
  /** The model's scores are NaN (corrupt weights). */
  invalid: boolean
}

export class OnlineUtterance {
  readonly #recognizer: OnlineRecognizer
  #stream: OnlineStream | null

  constructor(recognizer: OnlineRecognizer) {
    this.#recognizer = recognizer
    this.#stream = recognizer.createStream()
  }

  /** Feeds samples and decodes every chunk that is ready; returns the text so far. */
  accept(samples: Float32Array): string {
    const stream = this.#live()
    if (samples.length > 0) stream.acceptWaveform({ sampleRate: SAMPLE_RATE, samples })
    this.#decodeReady(stream)
    return this.#read(stream).result.text.trim()
  }

  /** Flushes the end of the utterance and returns its result; the stream is released. */
  finish(): OnlineDecoded {
    const stream = this.#live()
    stream.acceptWaveform({ sampleRate: SAMPLE_RATE, samples: TAIL_PADDING })
    stream.inputFinished()
    this.#decodeReady(stream)
    const decoded = this.#read(stream)
    this.#stream = null
    return decoded
  }

  /** Drops the stream (its native memory is freed when it is collected: the bindings offer no free). */
  release(): void {
    this.#stream = null
  }

  get ended(): boolean {
    return this.#stream === null
  }

  #live(): OnlineStream {
    if (!this.#stream) throw new Error('sherpa-onnx stream: the utterance has ended')
    return this.#stream
  }

  #decodeReady(stream: OnlineStream): void {
    while (this.#recognizer.isReady(stream)) this.#recognizer.decode(stream)
  }

  #read(stream: OnlineStream): OnlineDecoded {
    const raw = parseResult(onlineResultJson(this.#recognizer, stream)) as OnlineResultJson
    const result: OfflineRecognizerResult = { ...raw, ys_log_probs: raw.ys_probs ?? raw.ys_log_probs ?? [] }
    return { result, invalid: hasInvalidScores(result) }
  }
}

/** The engine contract's live utterance on a streaming model. */
export class SherpaOnlineStream implements EngineStream {
  readonly #utterance: OnlineUtterance
  readonly #toResult: (decoded: OnlineDecoded) => EngineTranscribeResult
  #partial = ''

  constructor(utterance: OnlineUtterance, toResult: (decoded: OnlineDecoded) => EngineTranscribeResult) {
    this.#utterance = utterance
    this.#toResult = toResult
  }

  accept(samples: Float32Array): EnginePartial | null {
    if (this.#utterance.ended) throw new Error('sherpa-onnx stream: accept after the utterance ended')
    const text = this.#utterance.accept(samples)
    if (text === this.#partial) return null
    this.#partial = text
    return { text }
  }

  async finish(): Promise<EngineTranscribeResult> {
    if (this.#utterance.ended) throw new Error('sherpa-onnx stream: finish after the utterance ended')
    return this.#toResult(this.#utterance.finish())
  }

  cancel(): void {
    this.#utterance.release()
  }
}
