import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { AudioDecoder } from '../../audio/index.ts'
import { isDictumError } from '../../errors/catalogue.ts'
import { audioFixturesDir, encodeWav, tone } from '../helpers/wav.ts'

const jfkWav = path.join(audioFixturesDir, 'jfk.wav')
const jfkMp3 = path.join(audioFixturesDir, 'original-formats', 'jfk.mp3')
const fixtures = t.testdir()
const longM4a = path.join(fixtures, 'long.m4a')
const shortM4a = path.join(fixtures, 'short.m4a')

t.before(() => {
  const ffmpeg = (...args: string[]) =>
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...args])
  ffmpeg('-i', path.join(audioFixturesDir, 'extra', 'silero-vad-test-en-60s.wav'), '-c:a', 'aac', longM4a)
  ffmpeg('-i', jfkWav, '-c:a', 'aac', shortM4a)
})

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await errorOf(promise)
  return isDictumError(error) ? error.code : String(error)
}

/** Running ffmpeg processes whose command line mentions `needle` (Linux /proc). */
function ffmpegProcessesMentioning(needle: string): number {
  let count = 0
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      if (cmdline.includes('ffmpeg') && cmdline.includes(needle)) count++
    } catch {}
  }
  return count
}

function setup(t: Test, maxSeconds = 7200) {
  const tempDir = t.testdir()
  const decoder = new AudioDecoder({ maxSeconds, tempDir })
  t.teardown(() => decoder.close())
  return { tempDir, decoder, leftovers: () => readdirSync(tempDir) }
}

t.test('AUDIO_TOO_LONG: WAV is refused from its header, before decoding', async (t) => {
  const { decoder } = setup(t, 10)
  const error = await errorOf(decoder.decode({ kind: 'file', path: jfkWav }))
  t.ok(isDictumError(error) && error.code === 'AUDIO_TOO_LONG')
  t.equal((error as Error).message, 'Audio is too long: 11 seconds, over the limit of 10 seconds.')
  const exactly = encodeWav([tone(440, 8000, 80000)], { sampleRate: 8000, format: 's16' })
  t.equal(
    (await decoder.decode({ kind: 'bytes', data: exactly })).length,
    160000,
    'exactly the limit is fine',
  )
  const raw = Buffer.alloc(2 * 16000 * 11)
  t.equal(await codeOf(decoder.decode({ kind: 'bytes', data: raw, filename: 'x.raw' })), 'AUDIO_TOO_LONG')
})

t.test('AUDIO_TOO_LONG: ffmpeg output is cut off once past the limit', async (t) => {
  const { decoder, leftovers } = setup(t, 5)
  t.equal(await codeOf(decoder.decode({ kind: 'file', path: jfkMp3 })), 'AUDIO_TOO_LONG')
  const data = readFileSync(longM4a)
  t.equal(await codeOf(decoder.decode({ kind: 'bytes', data })), 'AUDIO_TOO_LONG')
  t.same(leftovers(), [], 'the temp copy is gone')
  let received = 0
  const streamed = (async () => {
    for await (const chunk of decoder.stream({ kind: 'bytes', data }, { chunkSeconds: 1 }))
      received += chunk.length
  })()
  t.equal(await codeOf(streamed), 'AUDIO_TOO_LONG')
  t.ok(received <= 5 * 16000, `stream() stops at the limit (${received} samples delivered)`)
})

t.test('temp files are removed after success and failure', async (t) => {
  const { decoder, leftovers } = setup(t)
  const data = readFileSync(shortM4a)
  t.ok((await decoder.decode({ kind: 'bytes', data })).length > 170000)
  t.same(leftovers(), [], 'after success')
  const broken = Buffer.concat([data.subarray(0, 40), Buffer.alloc(3000, 1)])
  t.equal(await codeOf(decoder.decode({ kind: 'bytes', data: broken })), 'AUDIO_DECODE_FAILED')
  t.same(leftovers(), [], 'after failure')
})

t.test('abort: a running decode stops, ffmpeg is killed, nothing is left behind', async (t) => {
  const { decoder, leftovers, tempDir } = setup(t)
  const data = readFileSync(longM4a)
  const controller = new AbortController()
  const chunks = decoder.stream({ kind: 'bytes', data }, { chunkSeconds: 1 }, controller.signal)
  const iterator = chunks[Symbol.asyncIterator]()
  t.equal((await iterator.next()).value?.length, 16000, 'decoding has started')
  t.equal(leftovers().length, 1, 'the temp copy exists while ffmpeg runs')
  controller.abort()
  const error = (await errorOf(
    (async () => {
      for (;;) if ((await iterator.next()).done) return
    })(),
  )) as Error
  t.equal(error.name, 'AbortError')
  t.same(leftovers(), [], 'after abort')
  t.equal(ffmpegProcessesMentioning(tempDir), 0, 'no ffmpeg child is left running')

  const aborted = AbortSignal.abort()
  t.equal(((await errorOf(decoder.decode({ kind: 'bytes', data }, aborted))) as Error).name, 'AbortError')
  t.same(leftovers(), [], 'an already aborted request never writes a temp file')

  const wav = encodeWav([tone(440, 48000, 48000 * 30)], { sampleRate: 48000, format: 's16' })
  const wavController = new AbortController()
  const wavChunks = decoder.stream({ kind: 'bytes', data: wav }, { chunkSeconds: 1 }, wavController.signal)
  const wavIterator = wavChunks[Symbol.asyncIterator]()
  await wavIterator.next()
  wavController.abort()
  const wavError = await errorOf(
    (async () => {
      for (;;) if ((await wavIterator.next()).done) return
    })(),
  )
  t.equal((wavError as Error).name, 'AbortError', 'in-process WAV decoding stops too')
})

t.test('breaking out of stream() early releases everything', async (t) => {
  const { decoder, leftovers, tempDir } = setup(t)
  for await (const chunk of decoder.stream(
    { kind: 'bytes', data: readFileSync(longM4a) },
    { chunkSeconds: 1 },
  )) {
    t.equal(chunk.length, 16000)
    break
  }
  t.same(leftovers(), [])
  t.equal(ffmpegProcessesMentioning(tempDir), 0)
})

t.test(
  'close() kills running ffmpeg children and removes temp files, even for abandoned streams',
  async (t) => {
    const tempDir = t.testdir()
    const decoder = new AudioDecoder({ maxSeconds: 7200, tempDir })
    const iterator = decoder
      .stream({ kind: 'bytes', data: readFileSync(longM4a) }, { chunkSeconds: 1 })
      [Symbol.asyncIterator]()
    await iterator.next()
    t.equal(readdirSync(tempDir).length, 1)
    t.equal(ffmpegProcessesMentioning(tempDir), 1, 'ffmpeg is running')
    await decoder.close()
    t.same(readdirSync(tempDir), [], 'temp dir emptied by close()')
    t.equal(ffmpegProcessesMentioning(tempDir), 0, 'ffmpeg is gone')
    await decoder.close()
    t.pass('close() twice is fine')
    t.equal(
      await codeOf(decoder.decode({ kind: 'file', path: jfkWav })),
      'INTERNAL',
      'no new work after close',
    )
  },
)
