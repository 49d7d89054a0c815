/**
 * Recordings kept with history: a dictation's audio is stored as FLAC with its entry, plays back through
 * GET /v1/history/{id}/audio (the same samples), and goes with the entry (one, all, maxEntries), with
 * `history.audioRetentionDays` and `history.audioMaxMb`; export leaves it out unless asked.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { AudioDecoder } from '../../../audio/index.ts'
import { build, injectJson } from '../../helpers/build.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'

const GO = path.join(audioFixturesDir, 'goforward.wav')
const JFK = path.join(audioFixturesDir, 'jfk.wav')
const echo = { speech: { engines: { 'fixture-echo': { text: 'go forward' } } } }

async function decode(source: { kind: 'file'; path: string } | { kind: 'bytes'; data: Buffer }) {
  const decoder = new AudioDecoder({ maxSeconds: 600 })
  try {
    return await decoder.decode(source)
  } finally {
    await decoder.close()
  }
}

t.test('a dictation keeps its audio as FLAC: the same samples play back', async (t) => {
  const app = await build(t, echo)
  const res = await injectJson(app, 'POST', '/v1/dictate', { path: GO })
  t.equal(res.status, 200)
  t.equal(res.body.hasAudio, true)
  const audio = await app.inject({ method: 'GET', url: `/v1/history/${res.body.id}/audio` })
  t.equal(audio.statusCode, 200)
  t.equal(audio.headers['content-type'], 'audio/flac')
  t.equal(audio.rawPayload.subarray(0, 4).toString('latin1'), 'fLaC')
  t.ok(audio.rawPayload.length < readFileSync(GO).length, 'smaller than the WAV')
  const original = await decode({ kind: 'file', path: GO })
  const kept = await decode({ kind: 'bytes', data: audio.rawPayload })
  t.equal(kept.length, original.length)
  let maxDiff = 0
  for (let i = 0; i < kept.length; i++) maxDiff = Math.max(maxDiff, Math.abs(kept[i]! - original[i]!))
  t.equal(maxDiff, 0, 'lossless: bit for bit the samples the engine got')
  const listed = await injectJson(app, 'GET', '/v1/history')
  t.equal(listed.body.items[0].hasAudio, true)
})

t.test('a machine without ffmpeg keeps the recording of a WAV dictation too', async (t) => {
  // No ffmpeg anywhere: none configured, none on PATH (the encoder is in process; WAV decodes in process).
  const saved = { PATH: process.env.PATH, FFMPEG_PATH: process.env.FFMPEG_PATH }
  process.env.PATH = ''
  delete process.env.FFMPEG_PATH
  const restore = () => {
    process.env.PATH = saved.PATH
    if (saved.FFMPEG_PATH !== undefined) process.env.FFMPEG_PATH = saved.FFMPEG_PATH
  }
  t.teardown(restore)
  const app = await build(t, { ...echo, audio: { ffmpegPath: '/nonexistent/ffmpeg' } })
  t.equal(await app.dictum.audio.decoder.ffmpeg(), null, 'this app finds no ffmpeg')
  const res = await injectJson(app, 'POST', '/v1/dictate', { path: GO })
  t.equal(res.status, 200)
  t.equal(res.body.hasAudio, true, 'the recording is kept')
  const audio = await app.inject({ method: 'GET', url: `/v1/history/${res.body.id}/audio` })
  restore()
  const kept = await decode({ kind: 'bytes', data: audio.rawPayload })
  const original = await decode({ kind: 'file', path: GO })
  t.ok(
    kept.length === original.length && kept.every((v, i) => v === original[i]),
    'and it holds the samples the engine got',
  )
})

t.test('404 when no recording is kept; keepAudio false keeps none', async (t) => {
  const app = await build(t, { ...echo, history: { keepAudio: false } })
  const res = await injectJson(app, 'POST', '/v1/dictate', { path: GO })
  t.equal(res.body.hasAudio, false)
  const audio = await injectJson(app, 'GET', `/v1/history/${res.body.id}/audio`)
  t.equal(audio.status, 404)
  t.equal(audio.body.code, 'HISTORY_AUDIO_NOT_FOUND')
  const unknown = await injectJson(app, 'GET', '/v1/history/00000000-0000-4000-8000-000000000000/audio')
  t.equal(unknown.status, 404)
  t.equal(unknown.body.code, 'HISTORY_ENTRY_NOT_FOUND')
})

t.test('deleting an entry, all entries or pruning deletes the audio', async (t) => {
  const app = await build(t, { ...echo, history: { maxEntries: 2 } })
  const db = app.dictum.db
  const count = () => (db.prepare('SELECT count(*) AS n FROM history_audio').get() as { n: number }).n
  const ids: string[] = []
  for (let i = 0; i < 2; i++) ids.push((await injectJson(app, 'POST', '/v1/dictate', { path: GO })).body.id)
  t.equal(count(), 2)
  await injectJson(app, 'DELETE', `/v1/history/${ids[0]}`)
  t.equal(count(), 1, 'one entry')
  for (let i = 0; i < 3; i++) await injectJson(app, 'POST', '/v1/dictate', { path: GO })
  t.equal(count(), 2, 'pruned to maxEntries with their audio')
  await injectJson(app, 'DELETE', '/v1/history?confirm=true')
  t.equal(count(), 0, 'delete-all')
})

t.test('the size cap drops the oldest recordings; retention drops old ones', async (t) => {
  // goforward.wav's FLAC is ~43 KB, jfk's ~220 KB: a 0.27 MB cap (283 KB) holds jfk and at most one more.
  const app = await build(t, { ...echo, history: { audioMaxMb: 0.27, audioRetentionDays: 30 } })
  const first = (await injectJson(app, 'POST', '/v1/dictate', { path: GO })).body.id
  const second = (await injectJson(app, 'POST', '/v1/dictate', { path: JFK })).body.id
  const third = (await injectJson(app, 'POST', '/v1/dictate', { path: GO })).body.id
  const has = async (id: string) => (await app.inject({ url: `/v1/history/${id}/audio` })).statusCode === 200
  t.equal(await has(first), false, 'the oldest went first')
  t.equal(await has(second), true)
  t.equal(await has(third), true)
  const total = app.dictum.db.prepare('SELECT sum(bytes) AS b FROM history_audio').get() as { b: number }
  t.ok(total.b <= 0.27 * 1024 * 1024, `under the cap (${total.b} bytes)`)
  t.equal((await injectJson(app, 'GET', '/v1/history')).body.count, 3, 'the entries stay')

  await app.dictum.history.applyAudioBounds(new Date(Date.now() + 31 * 24 * 3600 * 1000))
  t.equal(await has(second), false, 'past audioRetentionDays')
  t.equal(await has(third), false)
})

t.test('export leaves the audio out unless asked (json only)', async (t) => {
  const app = await build(t, echo)
  await injectJson(app, 'POST', '/v1/dictate', { path: GO })
  const plain = await app.inject({ url: '/v1/history/export' })
  const item = JSON.parse(plain.body).items[0]
  t.equal(item.audio, undefined)
  const withAudio = await app.inject({ url: '/v1/history/export?audio=true' })
  const flac = Buffer.from(JSON.parse(withAudio.body).items[0].audio, 'base64')
  t.equal(flac.subarray(0, 4).toString('latin1'), 'fLaC')
  const csv = await injectJson(app, 'GET', '/v1/history/export?format=csv&audio=true')
  t.equal(csv.status, 400)
  t.equal(csv.body.code, 'INVALID_HISTORY_QUERY')
})
