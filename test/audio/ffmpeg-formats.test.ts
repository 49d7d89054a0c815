import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { AudioDecoder } from '../../audio/index.ts'
import { audioFixturesDir, correlation, sameSamples } from '../helpers/wav.ts'

const clip = path.join(audioFixturesDir, 'jfk.wav')
const CLIP_SAMPLES = 176000

/** Encodings of the shared clip, made with the real ffmpeg; `minCorrelation` reflects how lossy each is. */
const variants = [
  { file: 'aac.m4a', args: ['-c:a', 'aac'], minCorrelation: 0.99 },
  { file: 'alac-48k-stereo.m4a', args: ['-c:a', 'alac', '-ar', '48000', '-ac', '2'], minCorrelation: 0.999 },
  { file: 'vorbis.ogg', args: ['-c:a', 'libvorbis'], minCorrelation: 0.99 },
  { file: 'speech.opus', args: ['-c:a', 'libopus'], minCorrelation: 0.99 },
  { file: 'pcm.aiff', args: ['-c:a', 'pcm_s16be'], minCorrelation: 0.999 },
  { file: 'pcm.caf', args: ['-c:a', 'pcm_s16le'], minCorrelation: 0.999 },
  { file: 'alac.caf', args: ['-c:a', 'alac'], minCorrelation: 0.999 },
  { file: 'opus.webm', args: ['-c:a', 'libopus'], minCorrelation: 0.99 },
  {
    file: 'mp3-44k-stereo.mp3',
    args: ['-c:a', 'libmp3lame', '-ar', '44100', '-ac', '2'],
    minCorrelation: 0.99,
  },
  { file: 'mulaw.wav', args: ['-c:a', 'pcm_mulaw'], minCorrelation: 0.99 },
  { file: 'adpcm.wav', args: ['-c:a', 'adpcm_ms'], minCorrelation: 0.99 },
  { file: 'flac-44k.flac', args: ['-c:a', 'flac', '-ar', '44100'], minCorrelation: 0.999 },
]

const dir = t.testdir()
const decoder = new AudioDecoder({ maxSeconds: 7200, tempDir: t.testdir() })
t.teardown(() => decoder.close())
let reference: Float32Array = new Float32Array(0)

t.before(async () => {
  for (const variant of variants) {
    const args = [
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      '-i',
      clip,
      ...variant.args,
      path.join(dir, variant.file),
    ]
    execFileSync('ffmpeg', args)
  }
  reference = await decoder.decode({ kind: 'file', path: clip })
})

for (const variant of variants) {
  t.test(`${variant.file} decodes to the clip by path and by bytes`, async (t) => {
    const file = path.join(dir, variant.file)
    const byPath = await decoder.decode({ kind: 'file', path: file })
    t.ok(Math.abs(byPath.length - CLIP_SAMPLES) <= 1600, `about 11 s: ${byPath.length} samples`)
    const similarity = correlation(byPath, reference)
    t.ok(similarity > variant.minCorrelation, `same audio (correlation ${similarity.toFixed(4)})`)
    // No file name: the default name of spec mode C is misleading on purpose, magic bytes decide.
    const byBytes = await decoder.decode({ kind: 'bytes', data: readFileSync(file), filename: 'audio.wav' })
    t.equal(byBytes.length, byPath.length, 'bytes and path give the same sample count')
  })
}

t.test('an m4a whose index (moov) comes last is decoded from bytes via a temp file', async (t) => {
  const data = readFileSync(path.join(dir, 'aac.m4a'))
  const moov = data.indexOf('moov')
  const mdat = data.indexOf('mdat')
  t.ok(mdat > 0 && moov > mdat, 'the fixture really has its moov atom after the media data')
  const out = await decoder.decode({ kind: 'bytes', data, contentType: 'audio/mp4' })
  t.ok(Math.abs(out.length - CLIP_SAMPLES) <= 1600)
})

t.test('stream() over an ffmpeg format yields what decode() returns', async (t) => {
  const source = { kind: 'file', path: path.join(dir, 'vorbis.ogg') } as const
  const whole = await decoder.decode(source)
  const chunks: Float32Array[] = []
  for await (const chunk of decoder.stream(source, { chunkSeconds: 2 })) chunks.push(chunk)
  t.same(
    chunks.map((c) => c.length),
    [...Array(Math.floor(whole.length / 32000)).fill(32000), whole.length % 32000].filter((n) => n > 0),
  )
  const joined = new Float32Array(whole.length)
  let offset = 0
  for (const chunk of chunks) {
    joined.set(chunk, offset)
    offset += chunk.length
  }
  t.ok(sameSamples(joined, whole), 'identical samples')
})
