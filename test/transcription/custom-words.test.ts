/**
 * The one mapping of custom words to an engine (transcription/custom-words.ts), used by files and live
 * sessions alike: the dictionary's words, then a request's keywords it lacks, as fresh objects.
 */
import t from 'tap'
import { engineCustomWords, requestWords } from '../../transcription/custom-words.ts'
import { build, injectJson } from '../helpers/build.ts'

const WITH = { customWords: true }
const WITHOUT = { customWords: false }

t.test("the dictionary's words, then the request's that it lacks (compared without case)", async (t) => {
  const app = await build(t)
  const added = await injectJson(app, 'POST', '/v1/dictionary/custom-words', {
    entries: [{ text: 'Kubernetes', weight: 20, aliases: ['kube'] }, { text: 'PostgreSQL' }],
  })
  t.equal(added.status, 200)
  const words = engineCustomWords(WITH, app.dictum.dictionary, requestWords(['kubernetes', 'Dictum']))
  t.same(words, [
    { text: 'Kubernetes', weight: 20, aliases: ['kube'] },
    { text: 'PostgreSQL', weight: null, aliases: [] },
    { text: 'Dictum', weight: null, aliases: [] },
  ])
  t.same(engineCustomWords(WITH, app.dictum.dictionary).length, 2, 'no request words: the dictionary alone')
})

t.test('an engine without the customWords capability gets none', async (t) => {
  const app = await build(t)
  await injectJson(app, 'POST', '/v1/dictionary/custom-words', { text: 'Kubernetes' })
  t.same(engineCustomWords(WITHOUT, app.dictum.dictionary, requestWords(['Dictum'])), [])
})

t.test("what the engine gets is a copy: changing it leaves the dictionary's words as they are", async (t) => {
  const app = await build(t)
  await injectJson(app, 'POST', '/v1/dictionary/custom-words', { text: 'Kubernetes', aliases: ['kube'] })
  const words = engineCustomWords(WITH, app.dictum.dictionary)
  words[0]!.text = 'changed'
  words[0]!.aliases.push('changed')
  t.same(engineCustomWords(WITH, app.dictum.dictionary), [
    { text: 'Kubernetes', weight: null, aliases: ['kube'] },
  ])
})
