/**
 * The audio of a Wyoming stream (`audio-start` / `audio-chunk`: `rate`, `width` in bytes, `channels`,
 * interleaved little-endian signed PCM) as the live session takes it: 16 kHz mono PCM16. Chunks need not
 * end on a frame: the bytes of a split frame wait for the next chunk.
 */
import { floatToPcm16, pcmToMono } from '../audio/pcm-convert.ts'
import { createResampler, type Resampler } from '../audio/resampler.ts'
import type { PcmLayout } from '../audio/types.ts'
import { errors } from '../errors/catalogue.ts'

export const LIVE_RATE = 16000

export interface AudioFormat {
  rate: number
  width: number
  channels: number
}

const FORMATS: Record<number, PcmLayout['sampleFormat']> = { 2: 's16', 3: 's24', 4: 's32' }

/** The format of an `audio-start` or `audio-chunk` event, checked. */
export function audioFormat(data: Record<string, unknown>): AudioFormat {
  const { rate, width, channels } = data
  const integer = (value: unknown, min: number, max: number) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
  if (!integer(rate, 4000, 192_000)) {
    throw errors.INVALID_REQUEST('"rate" must be a sample rate in hertz, 4000 to 192000.')
  }
  if (!integer(width, 2, 4)) throw errors.INVALID_REQUEST('"width" must be 2, 3 or 4 bytes a sample.')
  if (!integer(channels, 1, 16)) throw errors.INVALID_REQUEST('"channels" must be 1 to 16.')
  return { rate, width, channels } as AudioFormat
}

export function sameFormat(a: AudioFormat, b: AudioFormat): boolean {
  return a.rate === b.rate && a.width === b.width && a.channels === b.channels
}

export class PcmConverter {
  readonly format: AudioFormat
  readonly #layout: Pick<PcmLayout, 'sampleFormat' | 'channels' | 'blockAlign'>
  readonly #resampler: Resampler
  #rest: Buffer = Buffer.alloc(0)
  #frames = 0

  constructor(format: AudioFormat) {
    this.format = format
    this.#layout = {
      sampleFormat: FORMATS[format.width] as PcmLayout['sampleFormat'],
      channels: format.channels,
      blockAlign: format.width * format.channels,
    }
    this.#resampler = createResampler(format.rate, LIVE_RATE)
  }

  /** 16 kHz mono PCM16 for the whole frames received so far. */
  push(bytes: Buffer): Buffer {
    const all = this.#rest.length === 0 ? bytes : Buffer.concat([this.#rest, bytes])
    const whole = all.length - (all.length % this.#layout.blockAlign)
    this.#rest = Buffer.from(all.subarray(whole))
    if (whole === 0) return Buffer.alloc(0)
    const mono = pcmToMono(all.subarray(0, whole), this.#layout)
    this.#frames += mono.length
    return floatToPcm16(this.#resampler.push(mono))
  }

  /** The resampler's last samples (the stream ended). */
  finish(): Buffer {
    return floatToPcm16(this.#resampler.finish(this.#frames))
  }
}
