import t from 'tap'
import { AudioDecoder } from '../../audio/index.ts'
import { createResampler, resampledLength } from '../../audio/resampler.ts'
import { encodeWav, rms, sameSamples, tone, zeroCrossingFrequency } from '../helpers/wav.ts'

function runChunked(input: Float32Array, inRate: number, sizes: number[]): Float32Array {
  const resampler = createResampler(inRate, 16000)
  const parts: Float32Array[] = []
  let offset = 0
  let i = 0
  while (offset < input.length) {
    const size = sizes[i++ % sizes.length]!
    parts.push(resampler.push(input.subarray(offset, offset + size)).slice())
    offset += size
  }
  parts.push(resampler.finish(input.length))
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

const gain = (out: Float32Array, amplitude: number) => {
  const margin = Math.min(1000, Math.floor(out.length / 4))
  return 20 * Math.log10(rms(out, margin, out.length - margin) / (amplitude / Math.SQRT2))
}

t.test('length rule: round(frames * 16000 / rate), exactly frames at 16 kHz', async (t) => {
  t.equal(resampledLength(12345, 16000, 16000), 12345)
  t.equal(resampledLength(44100, 44100, 16000), 16000)
  t.equal(resampledLength(1, 44100, 16000), 0, '0.36 rounds down')
  t.equal(resampledLength(3, 48000, 16000), 1)
  t.equal(resampledLength(11, 22050, 16000), 8, '7.98 rounds up')
  t.equal(resampledLength(441, 44100, 16000), 160)
  t.equal(resampledLength(4, 32000, 16000), 2)
  t.equal(resampledLength(3, 32000, 16000), 2, 'exactly .5 rounds up')
  t.equal(resampledLength(5, 8000, 16000), 10)
  for (const rate of [8000, 11025, 22050, 32000, 44100, 44101, 48000, 96000]) {
    for (const frames of [0, 1, 2, 7, 100, 4409, 12345]) {
      const out = runChunked(new Float32Array(frames).fill(0.1), rate, [1000])
      t.equal(out.length, Math.round((frames * 16000) / rate), `${frames} frames at ${rate} Hz`)
    }
  }
})

t.test('chunked and whole-buffer conversion give the same samples', async (t) => {
  for (const rate of [44100, 48000, 8000, 44101]) {
    const input = tone(523, rate, rate, 0.4)
    const whole = runChunked(input, rate, [input.length])
    const chunked = runChunked(input, rate, [1, 7, 333, 4096, 50])
    t.ok(sameSamples(chunked, whole), `${rate} Hz`)
  }
})

for (const rate of [44100, 48000]) {
  t.test(
    `${rate} Hz: speech-band tones keep frequency and level, tones above 8 kHz are removed`,
    async (t) => {
      const a440 = runChunked(tone(440, rate, rate, 0.5), rate, [4096])
      t.equal(a440.length, 16000)
      t.ok(Math.abs(zeroCrossingFrequency(a440, 16000, 1000, 15000) - 440) < 0.5, '440 Hz stays 440 Hz')
      t.ok(Math.abs(gain(a440, 0.5)) < 0.1, '440 Hz passes at unit gain')
      const k3 = runChunked(tone(3000, rate, rate, 0.5), rate, [4096])
      t.ok(Math.abs(gain(k3, 0.5)) < 0.1, '3 kHz passes at unit gain')
      // Without a low-pass these would fold back to 4 kHz and 7 kHz at full level.
      for (const frequency of [9000, 12000]) {
        const out = runChunked(tone(frequency, rate, rate, 0.5), rate, [4096])
        t.ok(
          gain(out, 0.5) < -60,
          `${frequency} Hz is attenuated by more than 60 dB (${gain(out, 0.5).toFixed(1)})`,
        )
      }
      const edge = runChunked(tone(7900, rate, rate, 0.5), rate, [4096])
      t.ok(gain(edge, 0.5) < -20, '7.9 kHz, at the edge of the band, is strongly attenuated')
    },
  )
}

t.test('upsampling 8 kHz keeps a tone intact', async (t) => {
  const out = runChunked(tone(1000, 8000, 8000, 0.5), 8000, [999])
  t.equal(out.length, 16000)
  t.ok(Math.abs(zeroCrossingFrequency(out, 16000, 1000, 15000) - 1000) < 0.5)
  t.ok(Math.abs(gain(out, 0.5)) < 0.1)
})

t.test('the decoder resamples 44.1 and 48 kHz WAV files with the same rule', async (t) => {
  const decoder = new AudioDecoder({ maxSeconds: 60, env: { PATH: '' } })
  t.teardown(() => decoder.close())
  for (const [rate, frames] of [
    [44100, 44100 * 2 + 17],
    [48000, 48000 + 2],
    [22050, 12345],
    [8000, 4001],
  ] as const) {
    const wav = encodeWav([tone(440, rate, frames), tone(440, rate, frames)], {
      sampleRate: rate,
      format: 's16',
    })
    const out = await decoder.decode({ kind: 'bytes', data: wav })
    t.equal(out.length, Math.round((frames * 16000) / rate), `${rate} Hz, ${frames} frames`)
    t.ok(
      Math.abs(zeroCrossingFrequency(out, 16000, 500, out.length - 500) - 440) < 1,
      `${rate} Hz keeps 440 Hz`,
    )
  }
})
