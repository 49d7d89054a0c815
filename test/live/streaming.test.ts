/**
 * Live sessions on a streaming engine (the fixture streaming engine, in this process: one word per 100 ms
 * of loud audio, custom words first): partials grow, deltas are append-only and concatenate to the
 * completed transcript, replacement rules and custom words apply, a failed item is followed by one that
 * completes (a killed engine host: test/process/engine-isolation/live-host-killed.test.ts). Real speech clips, appended in 50 ms chunks without pacing.
 */
import path from 'node:path'
import t from 'tap'
import { pcmToMono } from '../../audio/pcm-convert.ts'
import type { LiveSessionOptions } from '../../live/types.ts'
import { expectedText } from '../fixtures/plugins/streaming-engine.ts'
import { build, FIXTURES } from '../helpers/build.ts'
import { appendInChunks, clipPcm, EventLog } from './helpers.ts'

const STREAMING = path.join(FIXTURES, 'plugins/streaming-engine.ts')
const COMMIT: LiveSessionOptions = { turnDetection: null, inputSampleRate: 16000 }

function streamingApp(t: Parameters<typeof build>[0], engineOptions: object = {}) {
  return build(t, {
    plugins: [STREAMING],
    speech: {
      engine: 'fixture-streaming-inline',
      engines: { 'fixture-streaming-inline': engineOptions },
    },
  })
}

const samplesOf = (pcm: Buffer) => pcmToMono(pcm, { sampleFormat: 's16', channels: 1, blockAlign: 2 })

t.test('partials grow, deltas come while audio arrives and concatenate to the completed text', async (t) => {
  const app = await streamingApp(t)
  const log = new EventLog()
  const session = await app.dictum.live.open(COMMIT, log.listener)
  const pcm = clipPcm('librivox-austen-0870.wav')
  await appendInChunks(session, pcm, 50)
  const deltasBeforeCommit = log.of('delta').length
  session.commit()
  await log.until(() => log.ended() === 1)
  await session.close()

  const [completed] = log.of('completed')
  const expected = expectedText(samplesOf(pcm), 100)
  t.ok(expected.split(' ').length > 10, `the fixture hears many words (${expected.split(' ').length})`)
  t.equal(completed?.transcript, expected, 'the final is what the whole audio gives')
  t.equal(completed?.rawText, expected)
  t.equal(log.deltasOf(completed!.itemId), completed?.transcript, 'deltas concatenate to the transcript')
  t.ok(deltasBeforeCommit >= 5, `deltas arrived while audio came (${deltasBeforeCommit} before the commit)`)
  const partials = log.of('partial').map((p) => p.text)
  t.ok(partials.length > 10, `many partials (${partials.length})`)
  t.ok(
    partials.every((text, i) => i === 0 || text.startsWith(partials[i - 1]!)),
    'each partial grows the previous one',
  )
  // every delta but the last was stable text: a prefix of the hypothesis when it was sent, not its last word
  let emitted = ''
  let current = ''
  const unstable: string[] = []
  const deltas = log.of('delta')
  for (const event of log.events) {
    if (event.type === 'partial') current = event.text
    if (event.type !== 'delta' || event === deltas.at(-1)) continue
    emitted += event.delta
    if (!current.startsWith(emitted) || emitted.split(' ').length >= current.split(' ').length)
      unstable.push(`${JSON.stringify(emitted)} of ${JSON.stringify(current)}`)
  }
  t.same(unstable, [], 'deltas only ever sent stable words')
  t.equal(completed?.words?.length, expected.split(' ').length, 'words with timings')
  t.equal(completed?.startSeconds, 0)
  t.equal(completed?.endSeconds, pcm.length / 2 / 16000)
  t.equal(completed?.engine, 'fixture-streaming-inline')
  t.same(
    log.events.map((e) => e.type).filter((type) => type === 'committed' || type === 'completed'),
    ['committed', 'completed'],
  )
})

t.test(
  'replacement rules apply to partials, deltas and the final; custom words reach the engine',
  async (t) => {
    const app = await streamingApp(t)
    await app.dictum.dictionary.writeCustomWords({ text: 'Zulu' })
    // a two-word trigger: the hold-back keeps "bravo" until "charlie" can no longer complete it
    await app.dictum.dictionary.writeReplacements({ triggers: ['bravo charlie'], replacement: 'B&C' })
    await app.dictum.dictionary.writeReplacements({ triggers: ['delta'], replacement: 'Δ' })
    const log = new EventLog()
    const session = await app.dictum.live.open(COMMIT, log.listener)
    await appendInChunks(session, clipPcm('librispeech-1089-134686-0001.wav'), 50)
    session.commit()
    await log.until(() => log.ended() === 1)
    await session.close()

    const [completed] = log.of('completed')
    t.match(completed?.rawText, /^Zulu alpha bravo charlie delta echo/, 'the custom word reached the stream')
    t.match(completed?.transcript, /^Zulu alpha B&C Δ echo/, 'rules applied to the final')
    t.equal(log.deltasOf(completed!.itemId), completed?.transcript, 'deltas concatenate to the transcript')
    t.ok(
      log.of('partial').some((p) => p.text.includes('B&C')),
      'partials carry the replacements',
    )
    t.notOk(
      log.of('partial').some((p) => /\bbravo charlie\b|\bdelta\b/.test(p.text)),
      'no partial shows a trigger',
    )
    t.notOk(
      log.of('delta').some((d) => d.delta.includes('bravo')),
      'no delta sent "bravo" before its rule could match',
    )
  },
)

t.test('an engine failure fails its item; the next item completes', async (t) => {
  // each stream throws on its 31st chunk: a 3.28 s clip in 50 ms chunks (66) fails, a 1.1 s one (22) does not
  const app = await streamingApp(t, { throwAfterChunks: 30 })
  const log = new EventLog()
  const session = await app.dictum.live.open(COMMIT, log.listener)
  await appendInChunks(session, clipPcm('librispeech-1089-134686-0001.wav'), 50)
  session.commit()
  const short = clipPcm('cards-001.wav')
  await appendInChunks(session, short, 50)
  session.commit()
  await log.until(() => log.ended() === 2)
  await session.close()

  const [failed] = log.of('failed')
  const [completed] = log.of('completed')
  const committed = log.of('committed')
  t.equal(failed?.itemId, committed[0]?.itemId, 'the first item failed')
  t.equal(failed?.error.code, 'ENGINE_FAILED')
  t.match(failed?.error.message, /fixture accept failed/)
  t.equal(completed?.itemId, committed[1]?.itemId, 'the second completed')
  t.equal(completed?.transcript, expectedText(samplesOf(short), 100))
  t.equal(committed[1]?.previousItemId, committed[0]?.itemId)
  t.equal(log.of('error').length, 0, 'no session error')
})

t.test('an engine without the streaming capability gets one delta per item', async (t) => {
  const app = await streamingApp(t, { streaming: false })
  const log = new EventLog()
  const session = await app.dictum.live.open(COMMIT, log.listener)
  const pcm = clipPcm('goforward.wav')
  await appendInChunks(session, pcm, 50)
  session.commit()
  await log.until(() => log.ended() === 1)
  await session.close()
  const [completed] = log.of('completed')
  t.equal(completed?.transcript, expectedText(samplesOf(pcm), 100))
  t.equal(log.of('partial').length, 0, 'no partials')
  t.same(
    log.of('delta').map((d) => d.delta),
    [completed?.transcript],
    'one delta: the whole text',
  )
})
