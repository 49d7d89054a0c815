import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { AudioDecoder, type AudioSource } from '../../audio/index.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { audioFixturesDir, encodeWav, sameSamples, tone } from '../helpers/wav.ts'

const decoder = new AudioDecoder({ maxSeconds: 7200, tempDir: tempDir(t) })
t.teardown(() => decoder.close())

async function streamAll(source: AudioSource, chunkSeconds: number) {
  const chunks: Float32Array[] = []
  for await (const chunk of decoder.stream(source, { chunkSeconds })) chunks.push(chunk)
  const joined = new Float32Array(chunks.reduce((n, c) => n + c.length, 0))
  let offset = 0
  for (const chunk of chunks) {
    joined.set(chunk, offset)
    offset += chunk.length
  }
  return { sizes: chunks.map((c) => c.length), joined }
}

function noise(frames: number, seed: number): Float32Array {
  const out = new Float32Array(frames)
  let state = seed
  for (let i = 0; i < frames; i++) {
    state = (state * 1103515245 + 12345) % 2147483648
    out[i] = state / 2147483648 - 0.5
  }
  return out
}

const sources: Array<[string, AudioSource, number]> = [
  ['16 kHz WAV file', { kind: 'file', path: path.join(audioFixturesDir, 'jfk.wav') }, 1],
  [
    '44.1 kHz stereo WAV bytes',
    {
      kind: 'bytes',
      data: encodeWav([noise(100000, 1), noise(100000, 2)], { sampleRate: 44100, format: 's24' }),
    },
    0.5,
  ],
  [
    '48 kHz float WAV bytes',
    { kind: 'bytes', data: encodeWav([tone(300, 48000, 150001)], { sampleRate: 48000, format: 'f32' }) },
    0.37,
  ],
  [
    'MP3 file through ffmpeg',
    { kind: 'file', path: path.join(audioFixturesDir, 'original-formats', 'jfk.mp3') },
    3,
  ],
  [
    'FLAC bytes piped to ffmpeg',
    {
      kind: 'bytes',
      data: readFileSync(
        path.join(audioFixturesDir, 'original-formats', 'librispeech-1089-134686-0001.flac'),
      ),
    },
    1,
  ],
]

for (const [name, source, chunkSeconds] of sources) {
  t.test(`${name}: stream() chunks concatenate to decode()`, async (t) => {
    const whole = await decoder.decode(source)
    const { sizes, joined } = await streamAll(source, chunkSeconds)
    const size = Math.round(chunkSeconds * 16000)
    t.ok(sizes.length >= 2, `${sizes.length} chunks`)
    t.ok(
      sizes.slice(0, -1).every((n) => n === size),
      'every chunk but the last has exactly chunkSeconds of samples',
    )
    t.ok(sizes.at(-1)! > 0 && sizes.at(-1)! <= size)
    t.ok(sameSamples(joined, whole), 'identical samples')
  })
}

t.test('a stream of an empty WAV yields nothing', async (t) => {
  const { sizes } = await streamAll(
    { kind: 'bytes', data: encodeWav([new Float32Array(0)], { sampleRate: 44100, format: 's16' }) },
    1,
  )
  t.same(sizes, [])
})

t.test('chunkSeconds must give at least one sample', async (t) => {
  const source = { kind: 'file', path: path.join(audioFixturesDir, 'jfk.wav') } as const
  await t.rejects(decoder.stream(source, { chunkSeconds: 0 })[Symbol.asyncIterator]().next(), RangeError)
})

t.test('decoding a 25 MB WAV leaves the event loop free to run other work', async (t) => {
  // 48 kHz stereo 16-bit: about 25 MB for 131 s, resampled in-process.
  const frames = 48000 * 131
  const data = encodeWav([tone(440, 48000, frames, 0.3), tone(660, 48000, frames, 0.3)], {
    sampleRate: 48000,
    format: 's16',
  })
  t.ok(data.length > 25_000_000, `${(data.length / 1e6).toFixed(1)} MB`)
  let turns = 0
  let running = true
  const spin = () => {
    turns++
    if (running) setImmediate(spin)
  }
  setImmediate(spin)
  const out = await decoder.decode({ kind: 'bytes', data })
  running = false
  t.equal(out.length, 16000 * 131)
  t.ok(turns > 50, `other callbacks ran ${turns} times during the decode`)
})
