/**
 * The FLAC kept with a history entry (audio/flac-encoder.ts, audio/recording-encoder.ts), read back by real
 * ffmpeg with its checks on (frame CRCs, the bitstream): lossless on the 16-bit grid, its header counting
 * the samples (a browser shows the length and can seek) and carrying their MD5, for every kind of block the
 * encoder writes (CONSTANT for silence, FIXED, VERBATIM for noise, short last blocks, a single sample); and
 * about as small as ffmpeg's own FLAC of a real clip.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { FlacEncoder } from '../../audio/flac-encoder.ts'
import { floatToInt16 } from '../../audio/pcm-convert.ts'
import { RecordingEncoder } from '../../audio/recording-encoder.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'

const scratch = mkdtempSync(path.join(tmpdir(), 'dictum-flac-'))
t.teardown(() => rmSync(scratch, { recursive: true, force: true }))

/** ffmpeg's reading of a FLAC: its samples, and what ffprobe says of the stream. */
function readBack(flac: Buffer): { samples: Int16Array; durationTs: number; sampleRate: string } {
  const pcm = execFileSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-xerror',
      '-err_detect',
      'crccheck+bitstream+buffer+explode',
      '-i',
      'pipe:0',
      '-f',
      's16le',
      '-',
    ],
    { input: flac, maxBuffer: 1 << 28 },
  )
  // From a file: ffprobe reads the header only, and would close a pipe with more to come.
  const file = path.join(scratch, 'probed.flac')
  writeFileSync(file, flac)
  const probed = execFileSync('ffprobe', [
    ...['-v', 'error', '-show_entries', 'stream=duration_ts,sample_rate', '-of', 'json', file],
  ]).toString()
  const stream = JSON.parse(probed).streams[0]
  return {
    samples: new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2),
    durationTs: Number(stream.duration_ts),
    sampleRate: stream.sample_rate,
  }
}

/** A seeded generator, so that the noise is the same in every run. */
function random(seed: number): () => number {
  let x = seed
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31
    return x / 2 ** 31
  }
}

function signal(length: number, at: (i: number) => number): Int16Array {
  return Int16Array.from({ length }, (_, i) => Math.max(-32768, Math.min(32767, Math.round(at(i)))))
}

const next = random(7)
const cases: Record<string, Int16Array> = {
  'a tone, 1.5 s': signal(24_000, (i) => 8000 * Math.sin(i / 9)),
  'digital silence then a tone (CONSTANT blocks)': signal(20_000, (i) =>
    i < 9000 ? 0 : 3000 * Math.sin(i / 5),
  ),
  'full-scale white noise (VERBATIM blocks)': signal(10_000, () => next() * 65535 - 32768),
  'a square wave at the rails': signal(8192 + 300, (i) => (Math.floor(i / 40) % 2 ? 32767 : -32768)),
  'quiet noise, a last block of 5 samples': signal(4096 * 2 + 5, () => next() * 40 - 20),
  // Frame numbers from 128 on take two bytes (FLAC's UTF-8-like code).
  '140 frames of a slow sweep': signal(4096 * 140 + 17, (i) => 6000 * Math.sin((i * i) / 4e7)),
  'one sample': Int16Array.of(-1234),
  'three samples': Int16Array.of(5, -7, 32767),
}

for (const [name, samples] of Object.entries(cases)) {
  t.test(`${name}: read back exactly, with its length and MD5`, async (t) => {
    const encoder = new FlacEncoder()
    // In uneven pieces, as a decoder hands them over.
    for (let at = 0, step = 1000; at < samples.length; at += step, step += 777)
      encoder.write(samples.subarray(at, at + step))
    const flac = encoder.finish()
    const back = readBack(flac)
    t.equal(back.sampleRate, '16000')
    t.equal(back.durationTs, samples.length, 'the header counts every sample')
    t.equal(back.samples.length, samples.length)
    t.ok(
      back.samples.every((v, i) => v === samples[i]),
      'every sample as written',
    )
    const pcm = Buffer.from(back.samples.buffer, back.samples.byteOffset, back.samples.byteLength)
    t.equal(
      flac.subarray(26, 42).toString('hex'),
      createHash('md5').update(pcm).digest('hex'),
      "STREAMINFO's MD5 is of the samples",
    )
  })
}

t.test('a recording: float samples on the 16-bit grid, clipped outside -1…1', async (t) => {
  const floats = Float32Array.from({ length: 6000 }, (_, i) => Math.round(9000 * Math.sin(i / 7)) / 32768)
  floats[10] = 1.5
  floats[11] = -2
  const recording = new RecordingEncoder()
  for (let at = 0; at < floats.length; at += 1600) recording.write(floats.subarray(at, at + 1600))
  const back = readBack(await recording.finish())
  const expected = floatToInt16(floats)
  t.equal(expected[10], 32767, 'clipped high')
  t.equal(expected[11], -32768, 'clipped low')
  t.equal(expected[20], Math.round(9000 * Math.sin(20 / 7)), 'a sample on the grid stays itself')
  t.ok(
    back.samples.length === floats.length && back.samples.every((v, i) => v === expected[i]),
    'the samples, unchanged',
  )
})

t.test('abort drops the recording: finish rejects', async (t) => {
  const recording = new RecordingEncoder()
  recording.write(new Float32Array(100))
  recording.abort()
  recording.abort()
  await t.rejects(recording.finish(), /aborted/)
})

t.test("a real clip: about as small as ffmpeg's FLAC, well under the PCM", async (t) => {
  const clip = path.join(audioFixturesDir, 'jfk.wav')
  const pcm = execFileSync('ffmpeg', [
    '-v',
    'error',
    '-i',
    clip,
    '-ac',
    '1',
    '-ar',
    '16000',
    '-f',
    's16le',
    '-',
  ])
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2)
  const encoder = new FlacEncoder()
  encoder.write(samples)
  const ours = encoder.finish()
  const theirs = execFileSync(
    'ffmpeg',
    [
      ...['-v', 'error', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', 'pipe:0'],
      ...['-c:a', 'flac', '-f', 'flac', '-'],
    ],
    { input: pcm },
  )
  t.ok(
    readBack(ours).samples.every((v, i) => v === samples[i]),
    'lossless',
  )
  const ratio = ours.length / theirs.length
  t.ok(ratio < 1.15, `ours ${ours.length} bytes, ffmpeg's ${theirs.length}: ${ratio.toFixed(3)}×`)
  t.ok(ours.length < pcm.length * 0.7, `${ours.length} of ${pcm.length} bytes of PCM`)
})

t.test('the read-back check can fail: one flipped bit in a frame is a CRC error', async (t) => {
  const encoder = new FlacEncoder()
  encoder.write(signal(20_000, (i) => 8000 * Math.sin(i / 9)))
  const flac = encoder.finish()
  flac[9000] = (flac[9000] as number) ^ 0x10
  t.throws(() => readBack(flac), /CRC error/)
})
