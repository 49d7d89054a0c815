/**
 * A live utterance on Vosk (the streaming capability): a recognizer of its own, fed each chunk as it comes
 * (`vosk_recognizer_accept_waveform`). The partial is the text of the pieces Vosk's endpointer already closed
 * (`vosk_recognizer_result`) followed by its current hypothesis (`vosk_recognizer_partial_result`); the final
 * result joins the closed pieces and `vosk_recognizer_final_result`, exactly as `transcribe` joins them.
 */
import {
  type EnginePartial,
  type EngineStream,
  type EngineTranscribeResult,
  floatToPcm16,
  type TranscriptWord,
} from '../../sdk/plugin.ts'
import type { Pointer, VoskNative } from './native.ts'
import { BLOCK_SAMPLES } from './pcm.ts'
import { partialOf, toResult, wordsOf } from './result.ts'

export class VoskStream implements EngineStream {
  readonly #native: VoskNative
  #recognizer: Pointer | null
  readonly #language: string | undefined
  /** The pieces Vosk's endpointer closed so far, as words. */
  readonly #closed: TranscriptWord[][] = []
  #partial = ''
  /** Samples waiting for a whole block (pcm.ts: the recognizer gets the blocks `transcribe` gives it). */
  #pending = new Float32Array(0)

  constructor(native: VoskNative, recognizer: Pointer, language: string | undefined) {
    this.#native = native
    this.#recognizer = recognizer
    this.#language = language
  }

  accept(samples: Float32Array): EnginePartial | null {
    const recognizer = this.#live('accept')
    const audio = new Float32Array(this.#pending.length + samples.length)
    audio.set(this.#pending)
    audio.set(samples, this.#pending.length)
    const whole = audio.length - (audio.length % BLOCK_SAMPLES)
    this.#pending = audio.slice(whole)
    if (whole === 0) return null
    for (let at = 0; at < whole; at += BLOCK_SAMPLES)
      this.#feed(recognizer, audio.subarray(at, at + BLOCK_SAMPLES))
    const current = partialOf(this.#native.vosk_recognizer_partial_result(recognizer))
    const text = [...this.#closed.flat().map((w) => w.word), ...(current ? [current] : [])].join(' ')
    if (text === this.#partial) return null
    this.#partial = text
    return { text }
  }

  async finish(): Promise<EngineTranscribeResult> {
    const recognizer = this.#live('finish')
    try {
      if (this.#pending.length > 0) this.#feed(recognizer, this.#pending)
      this.#closed.push(wordsOf(this.#native.vosk_recognizer_final_result(recognizer)))
      return toResult(this.#closed, this.#language)
    } finally {
      this.cancel()
    }
  }

  /** One block to the recognizer; a piece its endpointer closes is kept. */
  #feed(recognizer: Pointer, samples: Float32Array): void {
    const pcm = floatToPcm16(samples)
    if (this.#native.vosk_recognizer_accept_waveform(recognizer, pcm, pcm.length) === 1)
      this.#closed.push(wordsOf(this.#native.vosk_recognizer_result(recognizer)))
  }

  cancel(): void {
    if (this.#recognizer) this.#native.vosk_recognizer_free(this.#recognizer)
    this.#recognizer = null
  }

  #live(call: string): Pointer {
    if (!this.#recognizer) throw new Error(`vosk stream: ${call} after the utterance ended`)
    return this.#recognizer
  }
}
