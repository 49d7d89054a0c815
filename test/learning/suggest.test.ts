/**
 * Telling a mishearing from a rewrite (the pocketsphinx model's dictionary, espeak-ng for the rest), the
 * suggestion each makes, and the correction route's rules on an engine without custom words (fixture-echo):
 * replacement rules, evidence growing, replay of a rule, dismiss, errors.
 */
import path from 'node:path'
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import pocketsphinx from '../../engines/pocketsphinx/index.ts'
import { PocketsphinxOptionsSchema } from '../../engines/pocketsphinx/options.ts'
import { changedSpans, words } from '../../learning/alignment.ts'
import { Pronouncer, phoneDistance } from '../../learning/phones.ts'
import { proposals } from '../../learning/suggest.ts'
import { build, injectJson } from '../helpers/build.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'

// The dictionary of the pocketsphinx model, as its definition names it for learning.
const modelDictionary = pocketsphinx.pronunciationDictionary?.({
  options: Value.Default(PocketsphinxOptionsSchema, {}),
  dataDir: '/nonexistent',
  modelsDir: '/nonexistent',
  logger: { debug() {}, info() {}, warn() {}, error() {} },
} as never)
const pronouncer = new Pronouncer(modelDictionary ?? null)

t.test('the engine names its model dictionary; an engine without one names none', async (t) => {
  const app = await build(t, { speech: { engine: 'pocketsphinx' } })
  t.equal(modelDictionary, '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict')
  t.equal(app.dictum.engines.pronunciationDictionary('pocketsphinx'), modelDictionary, 'through the registry')
  t.equal(app.dictum.engines.pronunciationDictionary('fixture-echo'), null)
  t.throws(() => app.dictum.engines.pronunciationDictionary('nope'), { code: 'ENGINE_NOT_FOUND' })
})

t.test('alignment: the changed spans, punctuation and case aside', async (t) => {
  t.same(
    changedSpans(words('He was not until explosion man.'), words('he was not an ill disposed young man')),
    [{ heard: ['until', 'explosion'], meant: ['an', 'ill', 'disposed', 'young'] }],
  )
  t.same(changedSpans(words('Same words.'), words('same, words')), [])
})

t.test('phone distance: alike sounds are near, other words far', async (t) => {
  const near = phoneDistance((await pronouncer.phones(['labeled']))!, (await pronouncer.phones(['ladled']))!)
  const far = phoneDistance((await pronouncer.phones(['kind']))!, (await pronouncer.phones(['explosion']))!)
  t.ok(near < 0.2, `labeled/ladled ${near}`)
  t.ok(far > 0.6, `kind/explosion ${far}`)
})

t.test('mishearing, writing confusion, rewrite', async (t) => {
  const misheard = await proposals(
    {
      heard: 'he was not until explosion man',
      meant: 'He was not an ill disposed young man.',
      customWords: true,
    },
    pronouncer,
  )
  t.same(
    misheard.map((p) => p.entry),
    [{ text: 'disposed', weight: null, aliases: [] }],
  )
  const noCustomWords = await proposals(
    { heard: 'to be labeled out', meant: 'to be ladled out', customWords: false },
    pronouncer,
  )
  t.same(
    noCustomWords.map((p) => p.entry),
    [{ triggers: ['labeled'], replacement: 'ladled' }],
    'an engine without custom words gets a replacement rule',
  )
  const writing = await proposals(
    { heard: 'he did it him self', meant: 'He did it himself.', customWords: true },
    pronouncer,
  )
  t.same(
    writing.map((p) => ({ kind: p.kind, entry: p.entry })),
    [{ kind: 'replacement', entry: { triggers: ['him self'], replacement: 'himself' } }],
  )
  const rewrite = await proposals(
    {
      heard: 'he was not until explosion man',
      meant: 'that young man seemed nice enough',
      customWords: true,
    },
    pronouncer,
  )
  t.same(rewrite, [], 'a rewrite teaches nothing')
})

t.test('the correction route on an engine without custom words', async (t) => {
  const app = await build(t, { speech: { engines: { 'fixture-echo': { text: 'he did it him self' } } } })
  const dictate = async () =>
    (await injectJson(app, 'POST', '/v1/dictate', { path: path.join(audioFixturesDir, 'goforward.wav') }))
      .body
  const first = await dictate()
  const second = await dictate()
  const one = await injectJson(app, 'POST', `/v1/history/${first.id}/correction`, {
    text: 'He did it himself.',
  })
  t.equal(one.status, 200)
  t.equal(one.body.entry.correctedText, 'He did it himself.')
  t.match(one.body.suggestions, [{ kind: 'replacement', evidence: [first.id], state: 'pending' }])
  const two = await injectJson(app, 'POST', `/v1/history/${second.id}/correction`, {
    text: 'he did it himself',
  })
  t.same(two.body.suggestions[0].evidence, [first.id, second.id], 'seen again: strengthened, not duplicated')
  const id = two.body.suggestions[0].id
  t.equal((await injectJson(app, 'GET', '/v1/dictionary/suggestions')).body.count, 1)

  const replayed = await injectJson(app, 'POST', `/v1/dictionary/suggestions/${id}/replay`)
  t.match(replayed.body.replay, { checked: 2, fixed: 2, broken: 0, werAfter: 0, complete: true })
  t.ok(replayed.body.replay.werBefore > 0)

  const dismissed = await injectJson(app, 'POST', `/v1/dictionary/suggestions/${id}/dismiss`)
  t.equal(dismissed.body.state, 'dismissed')
  const accept = await injectJson(app, 'POST', `/v1/dictionary/suggestions/${id}/accept`)
  t.equal(accept.status, 409)
  t.equal((await injectJson(app, 'GET', '/v1/dictionary/replacements')).body.count, 0, 'nothing added')

  for (const [body, code, status] of [
    [{}, 'INVALID_CORRECTION', 400],
    [{ text: '   ' }, 'INVALID_CORRECTION', 400],
    [{ text: 42 }, 'INVALID_CORRECTION', 400],
  ] as const) {
    const res = await injectJson(app, 'POST', `/v1/history/${first.id}/correction`, body)
    t.equal(res.status, status)
    t.equal(res.body.code, code)
  }
  const unknown = await injectJson(
    app,
    'POST',
    '/v1/history/00000000-0000-4000-8000-000000000000/correction',
    {
      text: 'x',
    },
  )
  t.equal(unknown.body.code, 'HISTORY_ENTRY_NOT_FOUND')
  const bad = await app.inject({
    method: 'POST',
    url: `/v1/history/${first.id}/correction`,
    payload: '{',
    headers: { 'content-type': 'application/json' },
  })
  t.equal(JSON.parse(bad.body).code, 'INVALID_CORRECTION_JSON')
  t.equal(
    (await injectJson(app, 'POST', '/v1/dictionary/suggestions/nope/accept')).body.code,
    'SUGGESTION_NOT_FOUND',
  )
})

t.test('learning.autoAccept accepts what replay shows fixes and breaks nothing', async (t) => {
  const app = await build(t, {
    speech: { engines: { 'fixture-echo': { text: 'he did it him self' } } },
    learning: { autoAccept: true },
  })
  const entry = (
    await injectJson(app, 'POST', '/v1/dictate', { path: path.join(audioFixturesDir, 'goforward.wav') })
  ).body
  await injectJson(app, 'POST', `/v1/history/${entry.id}/correction`, { text: 'he did it himself' })
  await app.dictum.learning.idle()
  const rules = (await injectJson(app, 'GET', '/v1/dictionary/replacements')).body
  t.match(rules.items, [{ triggers: ['him self'], replacement: 'himself' }])
  t.equal((await injectJson(app, 'GET', '/v1/dictionary/suggestions')).body.items[0].state, 'accepted')
})
