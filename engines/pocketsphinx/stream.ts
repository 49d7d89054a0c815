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
 *
 * The live pass asks for a hypothesis once every `hypothesisEvery` samples of audio, not after every chunk
 * (a server VAD session writes 32 ms windows), and stops for good when the host has fallen seconds behind
 * (`fallenBehind`): its partials would come too late to show, and the CPU goes to the finals.
 *
 * Live decoders are bounded per engine instance (option `maxLiveDecoders`): a stream opened while all are
 * taken keeps its audio and takes one at a later chunk, when one is free, catching up on the audio it kept
 * in one call; until then it gives no partials. Once its audio is complete (`finishing`, told by the kernel
 * as soon as the finish is on its way) the live pass stops and its decoder goes back at once: a committed
 * utterance only needs its final, so a host that has fallen behind does not decode its backlog twice.
 */
import {
  type EnginePartial,
  type EngineStream,
  type EngineTranscribeResult,
  floatToInt16,
} from '../../sdk/plugin.ts'
import type { BiasPlan } from './custom-words.ts'
import type { PocketsphinxDecoder } from './decoder.ts'
import { hypothesisText } from './transcript.ts'

export interface PocketsphinxStreamParts {
  /**
   * A free live decoder searching with the stream's plan, or null when all are taken (the pool's bound); it
   * is the stream's until handed back.
   */
  acquire: () => PocketsphinxDecoder | null
  plan: BiasPlan | null
  /** Decodes the whole utterance as `transcribe` would (the instance's batch decoder). */
  decodeWhole: (pcm: Int16Array, plan: BiasPlan | null) => EngineTranscribeResult
  /** Takes a live decoder back (the live pass ended: finishing, fallen behind, finish or cancel). */
  release: (decoder: PocketsphinxDecoder) => void
  /** Samples of audio between two hypotheses of the live pass (each costs a backtrace and a message). */
  hypothesisEvery: number
}

export class PocketsphinxStream implements EngineStream {
  readonly #parts: PocketsphinxStreamParts
  /** The live pass's decoder, null before one was free and once the live pass is over. */
  #decoder: PocketsphinxDecoder | null = null
  /** The live pass is over (finishing, finish or cancel): chunks are only kept. */
  #livePassOver = false
  /** finish or cancel was called: no more calls. */
  #ended = false
  /** The utterance's audio so far (int16), kept for the final pass. */
  readonly #chunks: Int16Array[] = []
  #length = 0
  /** The last partial text returned ('' before any). */
  #partial = ''
  /** Samples decoded by the live pass since its last hypothesis. */
  #sinceHypothesis = 0

  constructor(parts: PocketsphinxStreamParts) {
    this.#parts = parts
    this.#takeDecoder()
  }

  /** True while the stream holds a live decoder. */
  get live(): boolean {
    return this.#decoder !== null
  }

  accept(samples: Float32Array): EnginePartial | null {
    this.#check('accept')
    if (samples.length === 0) return null
    const pcm = floatToInt16(samples)
    this.#chunks.push(pcm)
    this.#length += pcm.length
    let decoder = this.#decoder
    if (!decoder) {
      // A decoder freed since: the live pass starts now, on the whole utterance so far.
      decoder = this.#takeDecoder()
      if (!decoder) return null
      this.#sinceHypothesis = 0
      return this.#partialOf(decoder.processChunk(this.#joined()))
    }
    // Chunks can be short (a VAD window is 32 ms): the hypothesis is asked for once enough audio came.
    this.#sinceHypothesis += pcm.length
    const ask = this.#sinceHypothesis >= this.#parts.hypothesisEvery
    const hypothesis = decoder.processChunk(pcm, ask)
    if (hypothesis === null) return null
    this.#sinceHypothesis = 0
    return this.#partialOf(hypothesis)
  }

  finishing(): void {
    this.#endLivePass()
  }

  /** The host holds seconds of this utterance not decoded yet: partials would come late, the final will not. */
  fallenBehind(): void {
    this.#endLivePass()
  }

  async finish(): Promise<EngineTranscribeResult> {
    this.#check('finish')
    this.#ended = true
    this.#endLivePass()
    const pcm = this.#joined()
    this.#chunks.length = 0
    return this.#parts.decodeWhole(pcm, this.#parts.plan)
  }

  cancel(): void {
    this.#ended = true
    this.#endLivePass()
    this.#chunks.length = 0
  }

  #partialOf(hypothesis: string): EnginePartial | null {
    const text = hypothesisText(hypothesis, this.#parts.plan?.canonical)
    if (text === this.#partial) return null
    this.#partial = text
    return { text }
  }

  #check(call: string): void {
    if (this.#ended) throw new Error(`pocketsphinx stream: ${call} after the utterance ended`)
  }

  /** A free live decoder for the live pass (its utterance started), or null. */
  #takeDecoder(): PocketsphinxDecoder | null {
    if (this.#livePassOver) return null
    const decoder = this.#parts.acquire()
    if (!decoder) return null
    try {
      decoder.startUtterance()
    } catch (error) {
      this.#parts.release(decoder)
      throw error
    }
    this.#decoder = decoder
    return decoder
  }

  /** Ends the live pass and hands its decoder back (once). */
  #endLivePass(): void {
    this.#livePassOver = true
    const decoder = this.#decoder
    if (!decoder) return
    this.#decoder = null
    decoder.endUtterance()
    this.#parts.release(decoder)
  }

  #joined(): Int16Array {
    if (this.#chunks.length === 1) return this.#chunks[0] as Int16Array
    const pcm = new Int16Array(this.#length)
    let at = 0
    for (const chunk of this.#chunks) {
      pcm.set(chunk, at)
      at += chunk.length
    }
    return pcm
  }
}
