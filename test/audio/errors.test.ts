import { execFileSync } from 'node:child_process'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { AudioDecoder } from '../../audio/index.ts'
import { isDictumError } from '../../errors/catalogue.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { audioFixturesDir, encodeWav, tone } from '../helpers/wav.ts'

const decoder = new AudioDecoder({ maxSeconds: 7200, tempDir: tempDir(t) })
t.teardown(() => decoder.close())
const jfkMp3 = path.join(audioFixturesDir, 'original-formats', 'jfk.mp3')

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise
  } catch (error) {
    if (isDictumError(error)) return { code: error.code, message: error.message }
    throw error
  }
  throw new Error('expected a rejection')
}

const bytes = (data: Buffer, filename?: string) => decoder.decode({ kind: 'bytes', data, filename })

t.test('path errors name the problem and the path', async (t) => {
  t.same(await codeOf(decoder.decode({ kind: 'file', path: 'audio/jfk.wav' })), {
    code: 'AUDIO_PATH_NOT_ABSOLUTE',
    message: 'Audio path must be absolute: audio/jfk.wav.',
  })
  const dir = t.testdir({ 'not-a-dir': 'x' })
  const missing = path.join(dir, 'missing.wav')
  t.same(await codeOf(decoder.decode({ kind: 'file', path: missing })), {
    code: 'AUDIO_FILE_NOT_FOUND',
    message: `Audio file not found: ${missing}.`,
  })
  const underFile = path.join(dir, 'not-a-dir', 'x.wav')
  t.equal((await codeOf(decoder.decode({ kind: 'file', path: underFile }))).code, 'AUDIO_FILE_NOT_FOUND')
  t.same(await codeOf(decoder.decode({ kind: 'file', path: dir })), {
    code: 'AUDIO_FILE_UNREADABLE',
    message: `Audio file is not readable: ${dir}.`,
  })
})

t.test('a FIFO or a device is refused without blocking', async (t) => {
  const fifo = path.join(t.testdir(), 'pipe.wav')
  execFileSync('mkfifo', [fifo])
  t.equal((await codeOf(decoder.decode({ kind: 'file', path: fifo }))).code, 'AUDIO_FILE_UNREADABLE')
  t.equal((await codeOf(decoder.decode({ kind: 'file', path: '/dev/zero' }))).code, 'AUDIO_FILE_UNREADABLE')
})

const asRoot = process.getuid?.() === 0
const rootSkip = asRoot ? 'running as root: file permissions do not stop reads' : false
t.test('a file without read permission is unreadable', { skip: rootSkip }, async (t) => {
  const file = path.join(t.testdir(), 'secret.wav')
  await writeFile(file, encodeWav([tone(440, 16000, 160)], { sampleRate: 16000, format: 's16' }))
  await chmod(file, 0o000)
  t.equal((await codeOf(decoder.decode({ kind: 'file', path: file }))).code, 'AUDIO_FILE_UNREADABLE')
})

t.test('empty, garbage and truncated inputs are AUDIO_DECODE_FAILED', async (t) => {
  const wav = encodeWav([tone(440, 16000, 1600)], { sampleRate: 16000, format: 's16' })
  const m4aDir = t.testdir()
  const m4a = path.join(m4aDir, 'clip.m4a')
  execFileSync('ffmpeg', [
    '-nostdin',
    '-loglevel',
    'error',
    '-i',
    path.join(audioFixturesDir, 'jfk.wav'),
    m4a,
  ])
  const cases: Array<[string, Buffer, string | undefined]> = [
    ['empty input', Buffer.alloc(0), 'audio.wav'],
    ['text', Buffer.from('this is not audio, just some words in a file'), undefined],
    [
      'random bytes named .mp3',
      Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 251)),
      'x.mp3',
    ],
    ['RIFF header cut short', wav.subarray(0, 10), undefined],
    ['WAV cut inside fmt', wav.subarray(0, 30), undefined],
    ['WAV without data chunk', wav.subarray(0, 36), undefined],
    ['m4a cut after 3 kB', (await readFile(m4a)).subarray(0, 3000), 'clip.m4a'],
    [
      'garbage after an ftyp box',
      Buffer.concat([(await readFile(m4a)).subarray(0, 32), Buffer.alloc(4000, 9)]),
      undefined,
    ],
    [
      'headerless PCM named .wav',
      await readFile(path.join(audioFixturesDir, 'original-formats', 'goforward.s16le-16k-mono.raw')),
      'a.wav',
    ],
  ]
  for (const [name, data, filename] of cases) {
    const { code, message } = await codeOf(bytes(data, filename))
    t.equal(code, 'AUDIO_DECODE_FAILED', name)
    t.match(message, /^Could not decode audio: \S.*\.$/, `${name}: ${message}`)
    t.notMatch(message, /\/tmp|dictum-audio|@ 0x/, `${name}: no internal paths or addresses`)
  }
})

t.test('invalid WAV headers are AUDIO_DECODE_FAILED with a short reason', async (t) => {
  const good = () => encodeWav([tone(440, 16000, 160)], { sampleRate: 16000, format: 's16' })
  const mutate = (edit: (b: Buffer) => void) => {
    const b = good()
    edit(b)
    return b
  }
  const cases: Array<[string, Buffer, RegExp]> = [
    ['zero channels', mutate((b) => b.writeUInt16LE(0, 22)), /zero channels/],
    ['zero sample rate', mutate((b) => b.writeUInt32LE(0, 24)), /sample rate/],
    // A 14 KB file claiming 1 Hz used to resample into 112 M samples in one call, freezing the API.
    [
      '1 Hz',
      mutate((b) => b.writeUInt32LE(1, 24)),
      /unsupported sample rate 1 Hz \(dictum reads 1000 to 384000 Hz\)/,
    ],
    ['999 Hz', mutate((b) => b.writeUInt32LE(999, 24)), /sample rate 999 Hz/],
    ['384001 Hz', mutate((b) => b.writeUInt32LE(384_001, 24)), /sample rate 384001 Hz/],
    ['block align mismatch', mutate((b) => b.writeUInt16LE(3, 32)), /block size/],
    ['16-bit float', mutate((b) => b.writeUInt16LE(3, 20)), /16-bit float samples/],
    ['40-bit integers', mutate((b) => b.writeUInt16LE(40, 34)), /40-bit integer samples/],
  ]
  for (const [name, data, reason] of cases) {
    const { code, message } = await codeOf(bytes(data))
    t.equal(code, 'AUDIO_DECODE_FAILED', name)
    t.match(message, reason, `${name}: ${message}`)
  }
})

t.test('the edges of the sample-rate range decode', async (t) => {
  for (const rate of [1000, 8000, 384_000]) {
    const wav = encodeWav([tone(440, rate, rate / 10)], { sampleRate: rate, format: 's16' })
    const samples = (await bytes(wav)) as Float32Array
    t.equal(samples.length, 1600, `${rate} Hz: 0.1 s as 16 kHz samples`)
  }
})

t.test('a file path with ffmpeg failing does not leak the path layout of ffmpeg errors', async (t) => {
  const file = path.join(t.testdir(), 'broken.ogg')
  await writeFile(file, Buffer.concat([Buffer.from('OggS'), Buffer.alloc(2000, 3)]))
  const { code, message } = await codeOf(decoder.decode({ kind: 'file', path: file }))
  t.equal(code, 'AUDIO_DECODE_FAILED')
  t.notMatch(message, file)
})

t.test('FFMPEG_NOT_FOUND when no ffmpeg can be found; WAV still decodes', async (t) => {
  const nowhere = new AudioDecoder({ maxSeconds: 60, ffmpegPath: '/nonexistent/ffmpeg', env: { PATH: '' } })
  t.teardown(() => nowhere.close())
  t.equal(await nowhere.ffmpeg(), null)
  const { code, message } = await codeOf(nowhere.decode({ kind: 'file', path: jfkMp3 }))
  t.equal(code, 'FFMPEG_NOT_FOUND')
  t.match(message, /^Could not decode audio: ffmpeg is needed/)
  const wav = await nowhere.decode({ kind: 'file', path: path.join(audioFixturesDir, 'jfk.wav') })
  t.equal(wav.length, 176000)
})

t.test('ffmpeg lookup order: config, FFMPEG_PATH, ffmpeg-static, PATH', async (t) => {
  const dir = t.testdir()
  const bin = path.join(dir, 'bin')
  await mkdir(bin)
  const fake = async (name: string) => {
    const file = path.join(bin, name)
    await writeFile(file, '#!/bin/sh\nexec /usr/bin/ffmpeg "$@"\n', { mode: 0o755 })
    return file
  }
  const configured = await fake('configured-ffmpeg')
  const fromEnv = await fake('env-ffmpeg')
  const onPath = await fake('ffmpeg')
  const nonExecutable = path.join(bin, 'plain-file')
  await writeFile(nonExecutable, 'not a program')
  const warnings: unknown[] = []
  const logger = { debug() {}, info() {}, error() {}, warn: (obj: unknown) => warnings.push(obj) }
  const lookup = (ffmpegPath: string | undefined, env: NodeJS.ProcessEnv) =>
    new AudioDecoder({ maxSeconds: 60, ffmpegPath, env, logger }).ffmpeg()

  t.same(await lookup(configured, { FFMPEG_PATH: fromEnv, PATH: bin }), {
    path: configured,
    source: 'config',
  })
  t.same(await lookup(undefined, { FFMPEG_PATH: fromEnv, PATH: bin }), { path: fromEnv, source: 'env' })
  t.same(await lookup(undefined, { PATH: `/nonexistent${path.delimiter}${bin}` }), {
    path: onPath,
    source: 'path',
  })
  t.same(
    await lookup('configured-ffmpeg', { PATH: bin }),
    { path: configured, source: 'config' },
    'a command name',
  )
  t.same(await lookup(nonExecutable, { FFMPEG_PATH: '/missing', PATH: bin }), {
    path: onPath,
    source: 'path',
  })
  t.equal(warnings.length, 2, 'each unusable configured value is logged')
  t.equal(
    await lookup(undefined, { PATH: '' }),
    null,
    'ffmpeg-static is not installed here and PATH is empty',
  )

  const viaConfigured = new AudioDecoder({ maxSeconds: 60, ffmpegPath: configured, env: { PATH: '' } })
  t.teardown(() => viaConfigured.close())
  t.equal(
    (await viaConfigured.decode({ kind: 'file', path: jfkMp3 })).length,
    176000,
    'the configured binary runs',
  )
})
