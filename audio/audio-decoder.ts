/**
 * The audio decoding service: every input becomes 16 kHz mono Float32 PCM. WAV (and explicit headerless
 * raw) is decoded in-process; everything else goes through ffmpeg. The decoder owns every child process,
 * temporary directory and open file it creates, and `close()` releases them.
 */

import os from 'node:os'
import { errors, isDictumError } from '../errors/catalogue.ts'
import type { PluginLogger } from '../kernel/contracts/engine.ts'
import { type AudioInput, openAudioInput } from './audio-input.ts'
import { rechunk } from './chunker.ts'
import { type DetectedFormat, detectFormat, HEAD_BYTES } from './detect-format.ts'
import { locateFfmpeg } from './ffmpeg-locator.ts'
import { runFfmpeg } from './ffmpeg-run.ts'
import { decodePcm, pcmOutputLength } from './pcm-stream.ts'
import { ResourceSet } from './resource-set.ts'
import { concatSamples } from './samples.ts'
import { writeTempInput } from './temp-input.ts'
import {
  type AudioDecoderOptions,
  type AudioSource,
  type FfmpegLocation,
  type PcmLayout,
  TARGET_SAMPLE_RATE,
} from './types.ts'
import { parseWavHeader } from './wav-header.ts'

interface DecodeJob {
  /** Exact output length when known before decoding (WAV, raw). */
  expectedLength: number | undefined
  chunks: AsyncGenerator<Float32Array>
  close(): Promise<void>
}

const silentLogger: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} }

/** Headerless input named `.raw`/`.pcm`: signed 16-bit little-endian, 16 kHz, mono. */
function rawLayout(size: number): PcmLayout {
  const layout = { sampleRate: TARGET_SAMPLE_RATE, channels: 1, sampleFormat: 's16', blockAlign: 2 } as const
  return { ...layout, dataOffset: 0, frames: Math.floor(size / 2) }
}

async function collect(job: DecodeJob): Promise<Float32Array> {
  if (job.expectedLength !== undefined) {
    const out = new Float32Array(job.expectedLength)
    let filled = 0
    for await (const chunk of job.chunks) {
      out.set(chunk, filled)
      filled += chunk.length
    }
    return filled === out.length ? out : out.slice(0, filled)
  }
  const parts: Float32Array[] = []
  let total = 0
  for await (const chunk of job.chunks) {
    parts.push(chunk)
    total += chunk.length
  }
  return concatSamples(parts, total)
}

export class AudioDecoder {
  readonly #options: AudioDecoderOptions
  readonly #logger: PluginLogger
  readonly #resources = new ResourceSet()
  readonly #closing = new AbortController()
  #located: FfmpegLocation | undefined

  constructor(options: AudioDecoderOptions) {
    if (!(options.maxSeconds > 0)) throw new RangeError('AudioDecoder: maxSeconds must be a positive number')
    this.#options = options
    this.#logger = options.logger ?? silentLogger
  }

  /** Whole file decoded to 16 kHz mono. */
  async decode(source: AudioSource, signal?: AbortSignal): Promise<Float32Array> {
    const job = await this.#start(source, signal)
    try {
      return await collect(job)
    } finally {
      await job.close()
    }
  }

  /** Streaming decode in chunks of `chunkSeconds` (the last one shorter); memory stays bounded. */
  async *stream(
    source: AudioSource,
    options: { chunkSeconds: number },
    signal?: AbortSignal,
  ): AsyncGenerator<Float32Array> {
    const size = Math.round(options.chunkSeconds * TARGET_SAMPLE_RATE)
    if (!Number.isFinite(size) || size < 1) throw new RangeError('AudioDecoder: chunkSeconds is too small')
    const job = await this.#start(source, signal)
    try {
      yield* rechunk(job.chunks, size)
    } finally {
      await job.close()
    }
  }

  /** Which ffmpeg would be used and where it came from, or null when there is none. */
  async ffmpeg(): Promise<FfmpegLocation | null> {
    if (this.#located) return this.#located
    const found = await locateFfmpeg({
      configured: this.#options.ffmpegPath,
      env: this.#options.env ?? process.env,
      logger: this.#logger,
    })
    if (found) this.#located = found
    return found
  }

  /** Kills running ffmpeg children and removes temporary files. Safe to call twice. */
  async close(): Promise<void> {
    if (!this.#closing.signal.aborted) {
      this.#closing.abort(errors.INTERNAL(undefined, { cause: new Error('The audio decoder was closed.') }))
    }
    await this.#resources.closeAll()
  }

  async #start(source: AudioSource, signal: AbortSignal | undefined): Promise<DecodeJob> {
    const operation = signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal
    operation.throwIfAborted()
    const input = await openAudioInput(source)
    const releaseInput = this.#resources.add(() => input.close())
    try {
      const { expectedLength, chunks } = await this.#plan(input, operation)
      const close = async () => {
        await chunks.return(undefined)
        await releaseInput()
      }
      return { expectedLength, chunks, close }
    } catch (error) {
      await releaseInput()
      throw error
    }
  }

  async #plan(input: AudioInput, signal: AbortSignal): Promise<Omit<DecodeJob, 'close'>> {
    if (input.size === 0) throw errors.AUDIO_DECODE_FAILED('the audio is empty.')
    const format = detectFormat(await input.read(0, HEAD_BYTES), input.nameHint, input.contentType)
    if (format.kind === 'raw') return this.#pcm(input, rawLayout(input.size), signal)
    if (format.kind === 'ffmpeg') return this.#ffmpeg(input, format, signal)
    const header = await parseWavHeader(input)
    if (header.kind === 'codec') {
      this.#logger.debug({ formatTag: header.formatTag }, 'WAV codec is not PCM; decoding with ffmpeg')
      return this.#ffmpeg(input, { kind: 'ffmpeg', extension: 'wav', needsFile: false }, signal)
    }
    if (header.truncated) {
      this.#logger.warn({ frames: header.layout.frames }, 'WAV data is shorter than its header says')
    }
    return this.#pcm(input, header.layout, signal)
  }

  #pcm(input: AudioInput, layout: PcmLayout, signal: AbortSignal): Omit<DecodeJob, 'close'> {
    const { maxSeconds } = this.#options
    if (layout.frames > maxSeconds * layout.sampleRate) {
      const seconds = Math.round((layout.frames / layout.sampleRate) * 10) / 10
      throw errors.AUDIO_TOO_LONG(`${seconds} seconds, over the limit of ${maxSeconds} seconds.`)
    }
    return { expectedLength: pcmOutputLength(layout), chunks: decodePcm(input, layout, signal) }
  }

  async #ffmpeg(
    input: AudioInput,
    format: Extract<DetectedFormat, { kind: 'ffmpeg' }>,
    signal: AbortSignal,
  ): Promise<Omit<DecodeJob, 'close'>> {
    const location = await this.ffmpeg()
    if (!location) throw errors.FFMPEG_NOT_FOUND()
    this.#logger.debug({ ffmpeg: location.path, format: format.extension }, 'decoding with ffmpeg')
    return { expectedLength: undefined, chunks: this.#runFfmpeg(location.path, input, format, signal) }
  }

  async *#runFfmpeg(
    binary: string,
    input: AudioInput,
    format: Extract<DetectedFormat, { kind: 'ffmpeg' }>,
    signal: AbortSignal,
  ): AsyncGenerator<Float32Array> {
    signal.throwIfAborted()
    const tempDir = this.#options.tempDir ?? os.tmpdir()
    const temp =
      input.data && format.needsFile
        ? await writeTempInput(tempDir, format.extension, input.data, this.#resources)
        : undefined
    try {
      const runInput = input.path ? { path: input.path } : temp ? { path: temp.path } : { data: input.data! }
      const { maxSeconds } = this.#options
      yield* runFfmpeg({
        binary,
        input: runInput,
        maxSeconds,
        signal,
        resources: this.#resources,
        logger: this.#logger,
      })
    } catch (error) {
      if (isDictumError(error) && error.code === 'FFMPEG_NOT_FOUND') this.#located = undefined
      throw error
    } finally {
      await temp?.release()
    }
  }
}
