import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { AudioDecoder } from '../../audio/index.ts'
import { encodeWav, sameSamples, tone, type WavSampleFormat } from '../helpers/wav.ts'

const decoder = new AudioDecoder({ maxSeconds: 7200, env: { PATH: '' } })
t.teardown(() => decoder.close())

/** A ramp through the whole range plus a few exact values, so scaling errors show. */
function ramp(frames: number): Float32Array {
  const out = new Float32Array(frames)
  for (let i = 0; i < frames; i++) out[i] = -1 + (2 * i) / frames
  out[0] = 0
  out[1] = 0.5
  out[2] = -0.5
  return out
}

const bytes = (data: Buffer, filename = 'audio.wav') => ({ kind: 'bytes' as const, data, filename })

const formats: Array<[WavSampleFormat, number]> = [
  ['u8', 1 / 128],
  ['s16', 1 / 32768],
  ['s24', 1 / 8388608],
  ['s32', 1 / 2147483648],
  ['f32', 1e-7],
  ['f64', 1e-12],
]

for (const [format, tolerance] of formats) {
  t.test(`${format} mono 16 kHz decodes sample for sample`, async (t) => {
    const signal = ramp(1600)
    const out = await decoder.decode(bytes(encodeWav([signal], { sampleRate: 16000, format })))
    t.equal(out.length, signal.length, 'one output sample per frame')
    let worst = 0
    for (let i = 0; i < signal.length; i++) worst = Math.max(worst, Math.abs(out[i]! - signal[i]!))
    t.ok(worst <= tolerance * 1.01, `max error ${worst} within one quantisation step`)
    t.equal(out[1], 0.5)
    t.equal(out[2], -0.5)
  })
}

t.test('16-bit values map to v / 32768 exactly, including the extremes', async (t) => {
  const data = Buffer.alloc(8)
  for (const [i, v] of [-32768, -1, 1, 32767].entries()) data.writeInt16LE(v, i * 2)
  const wav = encodeWav([new Float32Array(0)], { sampleRate: 16000, format: 's16' })
  const withData = Buffer.concat([wav, data])
  withData.writeUInt32LE(data.length, wav.length - 4) // the data chunk's size field
  const out = await decoder.decode(bytes(withData))
  t.same([...out], [-1, -1 / 32768, 1 / 32768, 32767 / 32768])
})

t.test('stereo and 6-channel audio is downmixed by averaging', async (t) => {
  const left = tone(440, 16000, 800, 0.6)
  const right = new Float32Array(800).fill(-0.2)
  const out = await decoder.decode(bytes(encodeWav([left, right], { sampleRate: 16000, format: 'f32' })))
  t.equal(out.length, 800)
  for (const i of [0, 10, 123, 799]) t.ok(Math.abs(out[i]! - (left[i]! - 0.2) / 2) < 1e-6, `frame ${i}`)
  const six = Array.from({ length: 6 }, (_, c) => new Float32Array(100).fill(c / 10))
  const mixed = await decoder.decode(bytes(encodeWav(six, { sampleRate: 16000, format: 's16' })))
  t.ok(Math.abs(mixed[50]! - 0.25) < 1e-4, 'average of 0, 0.1 … 0.5')
})

t.test('WAVE_FORMAT_EXTENSIBLE with PCM and float sub-formats', async (t) => {
  const signal = ramp(400)
  for (const format of ['s16', 's24', 'f32'] as const) {
    const wav = encodeWav([signal, signal], { sampleRate: 16000, format, extensible: true })
    t.equal(wav.readUInt16LE(20), 0xfffe, 'the file really is extensible')
    const out = await decoder.decode(bytes(wav))
    t.equal(out.length, 400, format)
    t.ok(Math.abs(out[200]! - signal[200]!) < 1e-4, `${format} values survive`)
  }
})

t.test('unknown chunks are skipped and odd chunk sizes are padded', async (t) => {
  const signal = ramp(321)
  const wav = encodeWav([signal], {
    sampleRate: 16000,
    format: 's16',
    before: [{ id: 'LIST', body: Buffer.from('INFOodd') }],
    between: [
      { id: 'junk', body: Buffer.alloc(3, 0xaa) },
      { id: 'fact', body: Buffer.alloc(4) },
    ],
    after: [{ id: 'id3 ', body: Buffer.from('trailing metadata') }],
  })
  const out = await decoder.decode(bytes(wav))
  t.equal(out.length, 321, 'trailing chunk is not decoded as audio')
  t.ok(Math.abs(out[100]! - signal[100]!) < 1e-4)
})

t.test('a writer that forgot the pad byte after an odd chunk is tolerated', async (t) => {
  const signal = ramp(100)
  const wav = encodeWav([signal], {
    sampleRate: 16000,
    format: 's16',
    before: [{ id: 'LIST', body: Buffer.from('abc') }],
    omitPadding: true,
  })
  const out = await decoder.decode(bytes(wav))
  t.equal(out.length, 100)
  t.ok(Math.abs(out[50]! - signal[50]!) < 1e-4)
})

t.test('streamed WAV: data size 0 or 0xFFFFFFFF means "to the end of the file"', async (t) => {
  const signal = ramp(999)
  for (const dataSizeField of [0, 0xffffffff]) {
    const wav = encodeWav([signal], { sampleRate: 16000, format: 's16', dataSizeField })
    wav.writeUInt32LE(dataSizeField, 4)
    const out = await decoder.decode(bytes(wav))
    t.equal(out.length, 999, `data size 0x${dataSizeField.toString(16)}`)
  }
})

t.test('RF64 files use the 64-bit size from ds64', async (t) => {
  const signal = ramp(500)
  const wav = encodeWav([signal], {
    sampleRate: 16000,
    format: 's16',
    container: 'RF64',
    after: [{ id: 'LIST', body: Buffer.alloc(20) }],
  })
  const out = await decoder.decode(bytes(wav))
  t.equal(out.length, 500, 'the chunk after data is not audio')
})

t.test('an empty but valid WAV decodes to 0 samples', async (t) => {
  const empty = encodeWav([new Float32Array(0)], { sampleRate: 16000, format: 's16' })
  t.equal((await decoder.decode(bytes(empty))).length, 0)
  const emptyStereo48k = encodeWav([new Float32Array(0), new Float32Array(0)], {
    sampleRate: 48000,
    format: 'f32',
  })
  t.equal((await decoder.decode(bytes(emptyStereo48k))).length, 0)
  const emptyThenChunk = encodeWav([new Float32Array(0)], {
    sampleRate: 16000,
    format: 's16',
    after: [{ id: 'LIST', body: Buffer.alloc(30, 7) }],
  })
  t.equal((await decoder.decode(bytes(emptyThenChunk))).length, 0, 'a size-0 data chunk followed by a chunk')
})

t.test(
  'data shorter than declared decodes the frames present; a partial last frame is dropped',
  async (t) => {
    const signal = ramp(1000)
    const wav = encodeWav([signal], { sampleRate: 16000, format: 's16' })
    const cut = wav.subarray(0, wav.length - 601)
    const out = await decoder.decode(bytes(cut))
    t.equal(out.length, 1000 - 301)
  },
)

t.test('WAV files on disk decode like the same bytes in memory', async (t) => {
  const dir = t.testdir()
  const wav = encodeWav([tone(300, 22050, 22050)], { sampleRate: 22050, format: 's24' })
  const file = path.join(dir, 'tone.wav')
  await writeFile(file, wav)
  const fromFile = await decoder.decode({ kind: 'file', path: file })
  const fromBytes = await decoder.decode(bytes(wav))
  t.equal(fromFile.length, 16000)
  t.ok(sameSamples(fromFile, fromBytes), 'identical samples')
})

t.test('magic bytes win over the file name and content type', async (t) => {
  const wav = encodeWav([ramp(200)], { sampleRate: 16000, format: 's16' })
  const out = await decoder.decode({
    kind: 'bytes',
    data: wav,
    filename: 'clip.mp3',
    contentType: 'audio/mpeg',
  })
  t.equal(out.length, 200, 'decoded in-process although ffmpeg is not reachable (PATH is empty)')
})

t.test('headerless .raw/.pcm input is read as s16le 16 kHz mono', async (t) => {
  const pcm = Buffer.alloc(6)
  pcm.writeInt16LE(16384, 0)
  pcm.writeInt16LE(-32768, 2)
  pcm.writeInt16LE(-1, 4)
  t.same([...(await decoder.decode(bytes(pcm, 'mic.raw')))], [0.5, -1, -1 / 32768])
  t.same([...(await decoder.decode(bytes(pcm, 'mic.PCM')))], [0.5, -1, -1 / 32768])
})
