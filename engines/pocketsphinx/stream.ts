/**
 * A live utterance on pocketsphinx (the streaming capability): partials from a decoder of its own fed chunk
 * by chunk, the final result from the whole utterance decoded at once, as `transcribe` decodes it.
 *
 * Why two passes: the acoustic model wants cepstral mean normalisation (CMN). Decoding a whole piece, the
 * library subtracts the piece's own mean (batch CMN); decoding chunk by chunk it cannot know that mean yet and
 * subtracts a running estimate that starts from the model's `-cmninit` (live CMN). Measured on the shared
 * clips, with the model's feat.params copied with `-cmn none` (the model's file overrides `-cmn` given as an
 * argument) and the cepstra normalised by hand: chunk by chunk with the whole utterance's mean, 9 of 10 texts
 * are the file pass's; with any mean a live pass can know (running, from the first 0.3–1 s, re-decoding
 * with the mean so far at 0.3, 0.6, 1.2… s) the live texts have WER 0.30–0.36 against the file pass's 0.28.
 * So the partials come from the live pass, and `finish` decodes the kept audio with the instance's batch
 * decoder: the final is exactly what `transcribe` gives, at the cost of one more decode of the utterance
 * (~0.14 s per second of speech here, the time a file transcription of it takes). Words sent as deltas can
 * differ from the final's (live/deltas.ts says what the item then does).
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
