/**
 * dictum learns from a correction, on real speech (pocketsphinx, the repo's clips): librivox-austen-0880
 * ("he was not an ill disposed young man") comes out "he was not until explosion man". Corrected, it yields
 * the custom word "disposed"; replay shows that recording fixed and none of the others broken; accepted,
 * ANOTHER recording with the word (librivox-austen-0890, "… ill disposed") comes out with it. A rewrite of
 * the same entry teaches nothing.
 */
import path from 'node:path'
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import pocketsphinx from '../../engines/pocketsphinx/index.ts'
import { PocketsphinxOptionsSchema } from '../../engines/pocketsphinx/options.ts'
import { build, injectJson } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'

const clip = (name: string) => path.join(audioFixturesDir, name)
const probe = await pocketsphinx.probe?.({
  options: Value.Default(PocketsphinxOptionsSchema, {}),
  dataDir: '/nonexistent',
  modelsDir: '/nonexistent',
  logger: { debug() {}, info() {}, warn() {}, error() {} },
} as never)
const skip = probe?.available ? false : 'pocketsphinx is not installed'

t.test('correct, suggest, replay, accept: another recording comes out right', { skip }, async (t) => {
  const app = await build(t, { speech: { engine: 'pocketsphinx' } })
  const dictate = async (name: string) => {
    const res = await injectJson(app, 'POST', '/v1/dictate', { path: clip(name) })
    t.equal(res.status, 200, name)
    return res.body as { id: string; rawText: string; hasAudio: boolean }
  }
  // Other recordings the replay checks for breakage.
  for (const name of ['goforward.wav', 'librispeech-1089-134686-0001.wav', 'cards-003.wav'])
    await dictate(name)
  const misheard = await dictate('librivox-austen-0880.wav')
  t.notMatch(misheard.rawText, /disposed/, `pocketsphinx mishears it: ${misheard.rawText}`)
  t.equal(misheard.hasAudio, true)

  const rewrite = await injectJson(app, 'POST', `/v1/history/${misheard.id}/correction`, {
    text: 'He was a kind fellow.',
  })
  t.equal(rewrite.status, 200)
  t.same(rewrite.body.suggestions, [], 'a rewrite teaches nothing')
  t.equal(rewrite.body.entry.correctedText, 'He was a kind fellow.')

  const corrected = await injectJson(app, 'POST', `/v1/history/${misheard.id}/correction`, {
    text: 'He was not an ill disposed young man.',
  })
  t.equal(corrected.status, 200)
  const suggestion = corrected.body.suggestions.find(
    (s: { entry: { text?: string } }) => s.entry.text === 'disposed',
  )
  t.ok(suggestion, `a custom word for "disposed": ${JSON.stringify(corrected.body.suggestions)}`)
  t.match(suggestion, { kind: 'customWord', state: 'pending', replay: null, evidence: [misheard.id] })
  t.same(suggestion.entry, { text: 'disposed', weight: null, aliases: [] })
  const found = await injectJson(app, 'GET', '/v1/history?q=ill%20disposed')
  t.equal(found.body.items[0]?.id, misheard.id, 'history search finds the corrected text')
  const listed = await injectJson(app, 'GET', '/v1/dictionary/suggestions')
  t.ok(
    listed.body.items.some((s: { id: string }) => s.id === suggestion.id),
    'listed',
  )

  const replayed = await injectJson(app, 'POST', `/v1/dictionary/suggestions/${suggestion.id}/replay`)
  t.equal(replayed.status, 200)
  const { replay } = replayed.body
  t.equal(replay.checked, 4, 'its own recording and the 3 others')
  t.equal(replay.broken, 0, 'none broken')
  t.equal(replay.fixed, 1)
  t.match(
    replay.recordings.find((r: { entryId: string }) => r.entryId === misheard.id),
    {
      verdict: 'fixed',
      after: /disposed/,
    },
  )
  t.ok(replay.werAfter < replay.werBefore, `WER ${replay.werBefore} -> ${replay.werAfter}`)

  const other = { path: clip('librivox-austen-0890.wav') }
  const before = await injectJson(app, 'POST', '/v1/transcribe', other)
  t.notMatch(before.body.text, /disposed/, `before accepting: ${before.body.text}`)
  const accepted = await injectJson(app, 'POST', `/v1/dictionary/suggestions/${suggestion.id}/accept`)
  t.equal(accepted.body.state, 'accepted')
  const words = await injectJson(app, 'GET', '/v1/dictionary/custom-words')
  t.ok(
    words.body.items.some((w: { text: string }) => w.text === 'disposed'),
    'in the dictionary',
  )
  const after = await dictate('librivox-austen-0890.wav')
  t.match(after.rawText, /\bdisposed\b/, `another recording comes out right: ${after.rawText}`)

  const again = await injectJson(app, 'POST', `/v1/dictionary/suggestions/${suggestion.id}/accept`)
  t.equal(again.status, 409)
  t.equal(again.body.code, 'SUGGESTION_NOT_PENDING')
})
