/**
 * Editing by voice on POST /v1/dictate: the stage runs after replacements and before the AI provider, the
 * raw text stays in history beside the result, `dictation.commands: false` turns it off, raw transcription
 * routes never apply it, and the rules provider does not carry the commands out twice.
 */
import path from 'node:path'
import t from 'tap'
import { build, injectJson } from '../../helpers/build.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'

const JFK = path.join(audioFixturesDir, 'jfk.wav')

function echo(text: string, overrides: Record<string, unknown> = {}) {
  return { speech: { engines: { 'fixture-echo': { text } } }, ...overrides }
}

t.test('dictation carries out the commands; history keeps the raw text beside the result', async (t) => {
  const app = await build(t, echo('hello comma world new line cap sam literally comma'))
  const res = await injectJson(app, 'POST', '/v1/dictate', { path: JFK })
  t.equal(res.status, 200)
  t.match(res.body, {
    rawText: 'hello comma world new line cap sam literally comma',
    finalText: 'hello, world\nSam comma',
    stored: true,
  })
  const [stored] = (await injectJson(app, 'GET', '/v1/history')).body.items
  t.match(stored, {
    rawText: 'hello comma world new line cap sam literally comma',
    finalText: 'hello, world\nSam comma',
  })
})

t.test('"scratch that" in one dictation removes the sentence before it', async (t) => {
  const app = await build(t, echo('send it today. Scratch that. Send it tomorrow.'))
  const res = await injectJson(app, 'POST', '/v1/dictate', { path: JFK })
  t.equal(res.body.finalText, 'Send it tomorrow.')
})

t.test('dictation.commands false, and the transcription routes, leave the words', async (t) => {
  const text = 'hello comma world scratch that'
  const off = await build(t, echo(text, { dictation: { commands: false } }))
  t.equal((await injectJson(off, 'POST', '/v1/dictate', { path: JFK })).body.finalText, text)
  const on = await build(t, echo(text))
  t.equal((await injectJson(on, 'POST', '/v1/transcribe', { path: JFK })).body.text, text)
})

t.test('the rules provider: its own commands on /v1/postprocess, not again after the stage', async (t) => {
  const app = await build(t, echo('say literally comma um now', { ai: { provider: 'rules' } }))
  const dictated = await injectJson(app, 'POST', '/v1/dictate', { path: JFK })
  t.match(dictated.body, { finalText: 'Say comma now', wasAIProcessed: true })
  const processed = await injectJson(app, 'POST', '/v1/postprocess', { text: 'hello comma world' })
  t.equal(processed.body.text, 'Hello, world')
})
