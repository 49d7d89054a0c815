/**
 * Decodes PCM frames (a WAV `data` chunk or headerless raw) slice by slice: bytes -> mono -> 16 kHz.
 * Slices are separated by `setImmediate`, so a 25 MB upload never holds the event loop for more than a few
 * milliseconds at a time: 256 KiB when resampling (the costly part: ~11 ms for 48 kHz stereo), 1 MiB when
 * the input is already 16 kHz (33 s of 16-bit mono in ~0.3 ms: most dictations decode in one slice, without
 * waiting for a turn of the event loop).
 */
import { setImmediate } from 'node:timers/promises'
import type { AudioInput } from './audio-input.ts'
import { pcmToMono } from './pcm-convert.ts'
import { createResampler, resampledLength } from './resampler.ts'
import { type PcmLayout, TARGET_SAMPLE_RATE } from './types.ts'

const SLICE_BYTES = 256 * 1024
const SLICE_BYTES_NO_RESAMPLING = 1024 * 1024

/** Output length for a layout: the frames, resampled by the documented rounding rule. */
export function pcmOutputLength(layout: PcmLayout): number {
  return resampledLength(layout.frames, layout.sampleRate, TARGET_SAMPLE_RATE)
}

export async function* decodePcm(
  input: AudioInput,
  layout: PcmLayout,
  signal: AbortSignal,
): AsyncGenerator<Float32Array> {
  const resampler = createResampler(layout.sampleRate, TARGET_SAMPLE_RATE)
  const sliceBytes = layout.sampleRate === TARGET_SAMPLE_RATE ? SLICE_BYTES_NO_RESAMPLING : SLICE_BYTES
  const framesPerSlice = Math.max(1, Math.floor(sliceBytes / layout.blockAlign))
  let frame = 0
  while (frame < layout.frames) {
    signal.throwIfAborted()
    const wanted = Math.min(framesPerSlice, layout.frames - frame)
    const bytes = await input.read(layout.dataOffset + frame * layout.blockAlign, wanted * layout.blockAlign)
    const frames = Math.floor(bytes.length / layout.blockAlign)
    if (frames > 0) {
      frame += frames
      const out = resampler.push(pcmToMono(bytes.subarray(0, frames * layout.blockAlign), layout))
      if (out.length > 0) yield out
    }
    // A short read means the file shrank after its header was read: decode what is there.
    if (frames < wanted) break
    await setImmediate()
  }
  signal.throwIfAborted()
  const tail = resampler.finish(frame)
  if (tail.length > 0) yield tail
}
