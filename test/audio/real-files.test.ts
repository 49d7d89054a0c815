import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { AudioDecoder } from '../../audio/index.ts'
import { audioFixturesDir, correlation, sameSamples } from '../helpers/wav.ts'

const decoder = new AudioDecoder({ maxSeconds: 7200 })
t.teardown(() => decoder.close())

/** An independent reference: ffmpeg's own decode to 16 kHz mono float. */
function ffmpegReference(file: string): Float32Array {
  const args = ['-nostdin', '-loglevel', 'error', '-i', file, '-f', 'f32le', '-ac', '1', '-ar', '16000', '-']
  const bytes = execFileSync('ffmpeg', args, { maxBuffer: 1 << 28 })
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
}

const wavs = [
  ...readdirSync(audioFixturesDir).filter((name) => name.endsWith('.wav')),
  ...readdirSync(path.join(audioFixturesDir, 'extra'))
    .filter((name) => name.endsWith('.wav'))
    .map((name) => `extra/${name}`),
]

t.test('the shared WAV recordings decode exactly like ffmpeg decodes them', async (t) => {
  t.ok(wavs.length >= 10, 'the shared recordings are present')
  for (const name of wavs) {
    const file = path.join(audioFixturesDir, name)
    const out = await decoder.decode({ kind: 'file', path: file })
    const reference = ffmpegReference(file)
    t.equal(out.length, reference.length, `${name}: ${out.length} samples`)
    let worst = 0
    for (let i = 0; i < out.length; i++) worst = Math.max(worst, Math.abs(out[i]! - reference[i]!))
    t.ok(worst < 1e-6, `${name}: identical samples (max difference ${worst})`)
  }
})

t.test('jfk.wav: 11 s at 16 kHz is 176000 samples, by path and by bytes', async (t) => {
  const file = path.join(audioFixturesDir, 'jfk.wav')
  t.equal((await decoder.decode({ kind: 'file', path: file })).length, 176000)
  t.equal((await decoder.decode({ kind: 'bytes', data: readFileSync(file) })).length, 176000)
})

t.test('FLAC originals decode through ffmpeg to the same audio as their WAV twins', async (t) => {
  for (const clip of ['librispeech-1089-134686-0000', 'librispeech-1089-134686-0001']) {
    const wav = await decoder.decode({ kind: 'file', path: path.join(audioFixturesDir, `${clip}.wav`) })
    const flacFile = path.join(audioFixturesDir, 'original-formats', `${clip}.flac`)
    const flac = await decoder.decode({ kind: 'file', path: flacFile })
    t.ok(Math.abs(flac.length - wav.length) <= 4, `${clip}: ${flac.length} vs ${wav.length} samples`)
    t.ok(correlation(flac, wav) > 0.999, `${clip}: correlation ${correlation(flac, wav)}`)
    const fromBytes = await decoder.decode({
      kind: 'bytes',
      data: readFileSync(flacFile),
      filename: 'x.flac',
    })
    t.ok(sameSamples(fromBytes, flac), 'piped bytes decode like the file')
  }
})

t.test('jfk.mp3 decodes to the clip, with the same length by path and by bytes', async (t) => {
  const mp3File = path.join(audioFixturesDir, 'original-formats', 'jfk.mp3')
  const wav = await decoder.decode({ kind: 'file', path: path.join(audioFixturesDir, 'jfk.wav') })
  const mp3 = await decoder.decode({ kind: 'file', path: mp3File })
  t.ok(Math.abs(mp3.length - wav.length) <= 1200, `${mp3.length} samples vs ${wav.length}`)
  t.ok(correlation(mp3, wav) > 0.9, `correlation ${correlation(mp3, wav)}`)
  const fromBytes = await decoder.decode({ kind: 'bytes', data: readFileSync(mp3File) })
  t.equal(fromBytes.length, mp3.length, 'no filename needed: the ID3 tag identifies it')
})

t.test('the headerless raw original equals its WAV twin', async (t) => {
  const raw = path.join(audioFixturesDir, 'original-formats', 'goforward.s16le-16k-mono.raw')
  const fromRaw = await decoder.decode({ kind: 'file', path: raw })
  const fromWav = await decoder.decode({ kind: 'file', path: path.join(audioFixturesDir, 'goforward.wav') })
  t.ok(sameSamples(fromRaw, fromWav), 'identical samples')
})
