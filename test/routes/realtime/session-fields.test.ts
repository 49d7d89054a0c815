/**
 * The session fields of OpenAI's current SDK (openai 7.x) on /v1/realtime, over a real WebSocket against a real
 * dictum with pocketsphinx on the repo's clips: the new model names, `keywords` (per session, merged with the
 * dictionary's custom words, the stored dictionary unchanged), `languages`, `include` logprobs,
 * `semantic_vad` (its eagerness is the silence that ends a turn) and `noise_reduction` (refused: dictum has no
 * denoiser). Engines without a capability are shown with the fixture engine, which has none.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import type { RealtimeTranscriptionSessionAudioInput } from 'openai/resources/realtime/realtime'
import t, { type Test } from 'tap'
import { MAX_KEYWORD_CHARS, MAX_KEYWORDS } from '../../../routes/openai/request-fields.ts'
import { build, sharedApp } from '../../helpers/build.ts'
import { listen, rawRequest } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'
import { openRealtime, pcmOf, type RealtimeTestClient, type Received, silence } from './realtime-client.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip = installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)'
const clip = (name: string) => pcmOf(path.join(audioFixturesDir, name))
/** pocketsphinx says "counseled" wrong on this clip without help (test/engines/pocketsphinx/stream.test.ts). */
const COUNSELLED = 'librispeech-1089-134686-0001.wav'

/**
 * The GA transcription session's `audio.input` as the openai package types it. `keywords` and `languages`
 * came with openai 7.x; the intersection names them for the type checker while 6.x is installed.
 */
type Input = RealtimeTranscriptionSessionAudioInput & {
  transcription?: RealtimeTranscriptionSessionAudioInput['transcription'] & {
    keywords?: string[]
    languages?: string[]
  }
}

/** Sends a GA session.update with this `audio.input` (and session fields) and waits for its answer. */
async function update(
  client: RealtimeTestClient,
  input: Input,
  session: { include?: Array<'item.input_audio_transcription.logprobs'> } = {},
): Promise<Received> {
  const from = client.events.length
  client.send({ type: 'session.update', session: { type: 'transcription', ...session, audio: { input } } })
  return client.waitFor((e) => e.type === 'session.updated' || e.type === 'error', from)
}

/** Appends the audio, commits it and waits for its item's completed (or failed) event. */
async function transcribe(client: RealtimeTestClient, pcm: Buffer): Promise<Received> {
  const from = client.events.length
  client.appendPcm(pcm)
  client.send({ type: 'input_audio_buffer.commit' })
  const committed = await client.next('input_audio_buffer.committed', from)
  const ends = ['completed', 'failed'].map((end) => `conversation.item.input_audio_transcription.${end}`)
  return client.waitFor((e) => ends.includes(e.type) && e.item_id === committed.item_id, from)
}

/**
 * One pocketsphinx service for the file: each subtest opens sessions of its own on it (a session's fields
 * are its own; nothing here stores custom words), so the model loads once, not once per subtest.
 */
const pocketsphinxService = sharedApp(t, { speech: { engine: 'pocketsphinx' } })

async function pocketsphinxSession(t: Test) {
  const { app, port } = await pocketsphinxService()
  const client = await openRealtime(t, port)
  await client.next('session.created')
  return { app, port, client }
}

t.test('keywords: a custom word for this session only, the dictionary unchanged', { skip }, async (t) => {
  const { port, client } = await pocketsphinxSession(t)
  const plain = await update(client, { turn_detection: null, transcription: { model: 'gpt-4o-transcribe' } })
  t.equal(plain.type, 'session.updated')
  const without = await transcribe(client, clip(COUNSELLED))
  t.notMatch(without.transcript, /counselled/i, `without the keyword: "${without.transcript}"`)

  const set = await update(client, { transcription: { keywords: ['counselled'] } })
  t.same(set.session.audio.input.transcription.keywords, ['counselled'], 'session.updated shows them')
  t.equal(set.session.audio.input.transcription.keywords_applied, true, 'pocketsphinx takes custom words')
  const withKeyword = await transcribe(client, clip(COUNSELLED))
  t.match(withKeyword.transcript, /\bcounselled\b/, `with the keyword: "${withKeyword.transcript}"`)

  const words = (await rawRequest({ port, path: '/v1/dictionary/custom-words' })).json
  t.same(words.items, [], 'the stored dictionary has no custom word')

  const cleared = await update(client, { transcription: { keywords: [] } })
  t.notOk('keywords' in cleared.session.audio.input.transcription, 'an empty list clears them')
  const again = await transcribe(client, clip(COUNSELLED))
  t.equal(again.transcript, without.transcript, 'and the text is as without them')
})

t.test('keywords: an invalid entry refuses the whole update, naming it', async (t) => {
  const app = await build(t)
  const client = await openRealtime(t, await listen(t, app))
  await client.next('session.created')
  // every entry holds "zq": the errors never quote what was sent
  const cases: Array<[unknown, string]> = [
    [['fine', 'zq\nlines'], 'session.audio.input.transcription.keywords[1]'],
    [['<b>zq</b>'], 'session.audio.input.transcription.keywords[0]'],
    [['zq\rreturn'], 'session.audio.input.transcription.keywords[0]'],
    [['zq\u0007bell'], 'session.audio.input.transcription.keywords[0]'],
    [['  '], 'session.audio.input.transcription.keywords[0]'],
    [['zq'.repeat(MAX_KEYWORD_CHARS)], 'session.audio.input.transcription.keywords[0]'],
    [
      Array.from({ length: MAX_KEYWORDS + 1 }, (_, i) => `zq${i}`),
      'session.audio.input.transcription.keywords',
    ],
    ['zq', 'session.audio.input.transcription.keywords'],
  ]
  for (const [keywords, param] of cases) {
    const from = client.events.length
    client.sendRaw(
      JSON.stringify({
        type: 'session.update',
        session: {
          type: 'transcription',
          audio: { input: { turn_detection: null, transcription: { keywords } } },
        },
      }),
    )
    const answer = await client.waitFor((e) => e.type === 'session.updated' || e.type === 'error', from)
    t.equal(answer.type, 'error', `${param} refused`)
    t.equal(answer.error.param, param, 'the entry is named')
    t.notMatch(answer.error.message, /zq/, 'and not quoted')
  }
  const after = await update(client, { transcription: { language: 'en' } })
  t.equal(
    after.session.audio.input.turn_detection?.type,
    'server_vad',
    'nothing of the refused updates applied',
  )
})

t.test('keywords on an engine without custom words: accepted, shown as not applied', async (t) => {
  const app = await build(t)
  const client = await openRealtime(t, await listen(t, app))
  await client.next('session.created')
  const answer = await update(client, { turn_detection: null, transcription: { keywords: ['Kubernetes'] } })
  t.equal(answer.type, 'session.updated')
  t.same(answer.session.audio.input.transcription.keywords, ['Kubernetes'])
  t.equal(answer.session.audio.input.transcription.keywords_applied, false, 'fixture-echo has no customWords')
  const completed = await transcribe(client, silence(500))
  t.equal(completed.type, 'conversation.item.input_audio_transcription.completed', 'the session works')
})

t.test('semantic_vad: turns cut by dictum VAD, the silence by eagerness', { skip }, async (t) => {
  const { client } = await pocketsphinxSession(t)
  const durations: Record<string, number> = {}
  for (const eagerness of ['high', 'low'] as const) {
    const answer = await update(client, { turn_detection: { type: 'semantic_vad', eagerness } })
    t.same(answer.session.audio.input.turn_detection, { type: 'semantic_vad', eagerness }, 'shown as sent')
    const from = client.events.length
    client.appendPcm(Buffer.concat([silence(500), clip('goforward.wav'), silence(3000)]))
    const stopped = await client.next('input_audio_buffer.speech_stopped', from)
    const committed = await client.next('input_audio_buffer.committed', from)
    t.equal(committed.item_id, stopped.item_id, `${eagerness}: the turn is cut`)
    const completed = await client.waitFor(
      (e) =>
        e.type === 'conversation.item.input_audio_transcription.completed' && e.item_id === stopped.item_id,
      from,
    )
    t.ok(completed.transcript.length > 0, `${eagerness}: "${completed.transcript}"`)
    durations[eagerness] = completed.usage.seconds
  }
  // The item's audio runs to the end of the silence that ended it: 500 ms (high) against 2000 ms (low).
  const difference = (durations.low ?? 0) - (durations.high ?? 0)
  t.ok(Math.abs(difference - 1.5) < 0.1, `low waits 1.5 s more of silence than high (${difference} s)`)

  const bad = await update(client, {
    turn_detection: { type: 'semantic_vad', eagerness: 'eager' as 'high' },
  })
  t.equal(bad.type, 'error')
  t.equal(bad.error.param, 'session.audio.input.turn_detection.eagerness')
})

t.test('noise_reduction: null accepted, a denoiser type refused with a clear error', async (t) => {
  const app = await build(t)
  const client = await openRealtime(t, await listen(t, app))
  await client.next('session.created')
  for (const type of ['near_field', 'far_field'] as const) {
    const answer = await update(client, { noise_reduction: { type } })
    t.equal(answer.type, 'error', type)
    t.equal(answer.error.code, 'unsupported_value')
    t.equal(answer.error.param, 'session.audio.input.noise_reduction')
    t.match(answer.error.message, /no noise reduction/)
  }
  // null turns it off in OpenAI's reference; the SDK's type leaves null out
  client.sendRaw(
    JSON.stringify({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { noise_reduction: null } } },
    }),
  )
  const off = await client.next('session.updated')
  t.equal(off.type, 'session.updated')
  t.equal(off.session.audio.input.noise_reduction, null)
})

t.test('include logprobs: on completed, one per word, spelling the transcript', { skip }, async (t) => {
  const { client } = await pocketsphinxSession(t)
  const answer = await update(
    client,
    { turn_detection: null },
    { include: ['item.input_audio_transcription.logprobs'] },
  )
  t.same(answer.session.include, ['item.input_audio_transcription.logprobs'], 'session.updated shows it')
  for (const name of ['goforward.wav', COUNSELLED]) {
    const completed = await transcribe(client, clip(name))
    const logprobs = completed.logprobs as Array<{ token: string; logprob: number; bytes: number[] }>
    t.ok(logprobs.length > 0, `${name}: logprobs`)
    t.equal(logprobs.map((l) => l.token).join(''), completed.transcript, 'the tokens spell the transcript')
    t.equal(logprobs.length, completed.transcript.split(' ').length, 'one per word')
    for (const { token, logprob, bytes } of logprobs) {
      t.ok(logprob <= 0 && logprob >= -100, `${token}: ${logprob}`)
      t.same(bytes, [...Buffer.from(token, 'utf8')], 'bytes are the token in UTF-8')
    }
  }
  const off = await update(client, {}, { include: [] })
  t.same(off.session.include, [])
  const plain = await transcribe(client, clip('goforward.wav'))
  t.notOk('logprobs' in plain, 'without include: none')
})

t.test('include logprobs on an engine without confidences: an error event', async (t) => {
  const app = await build(t)
  const client = await openRealtime(t, await listen(t, app))
  await client.next('session.created')
  const answer = await update(
    client,
    { turn_detection: null },
    { include: ['item.input_audio_transcription.logprobs'] },
  )
  t.equal(answer.type, 'error')
  t.equal(answer.error.code, 'logprobs_unsupported')
  t.equal(answer.error.param, 'include')
  if (installed)
    t.match(answer.error.message, /Engines that do: .*pocketsphinx/, 'names the engines that can')
  const after = await update(client, {})
  t.same(after.session.include, [], 'not applied')
  t.equal(after.session.audio.input.turn_detection?.type, 'server_vad', 'nothing of that update applied')
})

t.test('languages: at least one the engine transcribes; never with language', { skip }, async (t) => {
  const { port, client } = await pocketsphinxSession(t)
  const set = await update(client, { turn_detection: null, transcription: { languages: ['de', 'en'] } })
  t.same(set.session.audio.input.transcription.languages, ['de', 'en'])
  t.equal(set.session.audio.input.transcription.language, null)
  const completed = await transcribe(client, clip('goforward.wav'))
  t.equal(completed.transcript, 'go forward ten meters', 'pocketsphinx transcribes in en')

  const none = await update(client, { transcription: { languages: ['de', 'fr'] } })
  t.equal(none.type, 'error')
  t.equal(none.error.param, 'languages')
  t.match(none.error.message, /it does: en/, 'names the engine languages')

  const code = await update(client, { transcription: { languages: ['en', 'english!'] } })
  t.equal(code.type, 'error', 'not a language code')
  t.equal(code.error.param, 'session.audio.input.transcription.languages')

  const both = await update(client, { transcription: { language: 'en', languages: ['en'] } })
  t.equal(both.type, 'error')
  t.equal(both.error.param, 'session.audio.input.transcription.languages')

  const language = await update(client, { transcription: { language: 'en' } })
  t.equal(language.session.audio.input.transcription.language, 'en')
  t.notOk('languages' in language.session.audio.input.transcription, 'language replaces languages')

  // at open: a session that starts with languages the engine does not transcribe is refused
  const other = await openRealtime(t, port, { query: '?intent=transcription' })
  await other.next('session.created')
  const reopen = await update(other, { transcription: { model: 'fixture-echo', languages: ['fr'] } })
  t.equal(reopen.type, 'error', 'a new engine checks them at its open')
  t.equal(reopen.error.code, 'invalid_request')
})

t.test('the new model names run the selected engine', { skip }, async (t) => {
  const { port, client } = await pocketsphinxSession(t)
  for (const model of ['gpt-transcribe', 'gpt-realtime-whisper', 'gpt-live-transcribe']) {
    const answer = await update(client, { turn_detection: null, transcription: { model } })
    t.equal(answer.type, 'session.updated', model)
    t.equal(answer.session.audio.input.transcription.model, model, 'shown as named')
  }
  const completed = await transcribe(client, clip('goforward.wav'))
  t.equal(completed.transcript, 'go forward ten meters', 'gpt-live-transcribe: pocketsphinx transcribes')

  const opened = await openRealtime(t, port, { query: '?model=gpt-live-transcribe' })
  const created = await opened.next('session.created')
  t.equal(created.session.audio.input.transcription.model, 'gpt-live-transcribe', 'in the query too')
})

t.test('the beta shape takes the same fields', { skip }, async (t) => {
  const { port } = await pocketsphinxService()
  const client = await openRealtime(t, port, { headers: { 'OpenAI-Beta': 'realtime=v1' } })
  await client.next('transcription_session.created')
  // raw JSON: the beta types (6.x and 7.x) leave out turn_detection null and the 7.x transcription fields
  const send = (session: Record<string, unknown>) => {
    const from = client.events.length
    client.sendRaw(JSON.stringify({ type: 'transcription_session.update', session }))
    return client.waitFor((e) => e.type === 'transcription_session.updated' || e.type === 'error', from)
  }
  const answer = await send({
    include: ['item.input_audio_transcription.logprobs'],
    input_audio_transcription: { model: 'gpt-live-transcribe', keywords: ['counselled'], languages: ['en'] },
    turn_detection: null,
  })
  t.equal(answer.type, 'transcription_session.updated')
  t.same(answer.session.include, ['item.input_audio_transcription.logprobs'])
  t.match(answer.session.input_audio_transcription, {
    model: 'gpt-live-transcribe',
    keywords: ['counselled'],
    keywords_applied: true,
    languages: ['en'],
  })
  const completed = await transcribe(client, clip(COUNSELLED))
  t.match(completed.transcript, /\bcounselled\b/, 'the keyword reaches the engine')
  t.ok(completed.logprobs.length > 0, 'and logprobs come')
  const refused = await send({ input_audio_noise_reduction: { type: 'near_field' } })
  t.equal(refused.type, 'error')
  t.equal(refused.error.param, 'session.input_audio_noise_reduction')
})
