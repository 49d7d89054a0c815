/**
 * A live utterance on pocketsphinx (the streaming capability): partials from a decoder of its own fed chunk
 * by chunk, the final result from the whole utterance decoded at once, as `transcribe` decodes it.
 *
 * Why two passes: the acoustic model wants cepstral mean normalisation (CMN). Decoding a whole piece, the
 * library subtracts the piece's own mean (batch CMN); decoding chunk by chunk it cannot know that mean yet and
 * subtracts a running estimate that starts from the model's `-cmninit` and moves only every few seconds (live
 * CMN). Nothing else differs (with CMN off, chunked and whole decoding give the same text on every shared
 * clip), but live CMN changes 8 of the 10 clips' texts and raises their WER from 0.28 to 0.53. No setting
 * makes a causal pass equal the batch one, so the partials come from the live pass, and `finish` decodes the
 * kept audio with the instance's batch decoder: the final is exactly what `transcribe` gives, at the cost of
 * one more decode of the utterance (~0.12 s per second of speech here, the same time a file transcription
 * of it takes).
 */
import type { EnginePartial, EngineStream, EngineTranscribeResult } from '../../sdk/plugin.ts'
import type { BiasPlan } from './custom-words.ts'
import type { PocketsphinxDecoder } from './decoder.ts'
import { hypothesisText, toInt16 } from './transcript.ts'

export interface PocketsphinxStreamParts {
  /** The live decoder, the stream's own until it ends; custom words already applied. */
  decoder: PocketsphinxDecoder
  plan: BiasPlan | null
  /** Decodes the whole utterance as `transcribe` would (the instance's batch decoder). */
  decodeWhole: (pcm: Int16Array, plan: BiasPlan | null) => EngineTranscribeResult
  /** Takes the live decoder back when the stream ends (finish or cancel). */
  release: (decoder: PocketsphinxDecoder) => void
}

export class PocketsphinxStream implements EngineStream {
  #decoder: PocketsphinxDecoder | null
  readonly #plan: BiasPlan | null
  readonly #decodeWhole: PocketsphinxStreamParts['decodeWhole']
  readonly #release: PocketsphinxStreamParts['release']
  /** The utterance's audio so far (int16), kept for the final pass. */
  readonly #chunks: Int16Array[] = []
  #length = 0
  /** The last partial text returned ('' before any). */
  #partial = ''

  constructor(parts: PocketsphinxStreamParts) {
    this.#decoder = parts.decoder
    this.#plan = parts.plan
    this.#decodeWhole = parts.decodeWhole
    this.#release = parts.release
    this.#decoder.startUtterance()
  }

  accept(samples: Float32Array): EnginePartial | null {
    const decoder = this.#open('accept')
    if (samples.length === 0) return null
    const pcm = toInt16(samples)
    this.#chunks.push(pcm)
    this.#length += pcm.length
    const text = hypothesisText(decoder.processChunk(pcm), this.#plan?.canonical)
    if (text === this.#partial) return null
    this.#partial = text
    return { text }
  }

  async finish(): Promise<EngineTranscribeResult> {
    this.#open('finish')
    this.#end()
    const pcm = new Int16Array(this.#length)
    let at = 0
    for (const chunk of this.#chunks) {
      pcm.set(chunk, at)
      at += chunk.length
    }
    this.#chunks.length = 0
    return this.#decodeWhole(pcm, this.#plan)
  }

  cancel(): void {
    this.#end()
    this.#chunks.length = 0
  }

  #open(call: string): PocketsphinxDecoder {
    if (!this.#decoder) throw new Error(`pocketsphinx stream: ${call} after the utterance ended`)
    return this.#decoder
  }

  /** Ends the live pass and hands its decoder back (once). */
  #end(): void {
    const decoder = this.#decoder
    if (!decoder) return
    this.#decoder = null
    decoder.endUtterance()
    this.#release(decoder)
  }
}
