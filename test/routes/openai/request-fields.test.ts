/** The current OpenAI fields as the form reader hands them over: every shape clients send them in. */
import t from 'tap'
import { DictumError } from '../../../errors/catalogue.ts'
import {
  parseChunking,
  parseInclude,
  parseKeywords,
  parseLanguages,
  refuseDiarization,
} from '../../../routes/openai/request-fields.ts'

const form = (entries: Record<string, string[]>) => new Map(Object.entries(entries))

function param(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    if (error instanceof DictumError && error.statusCode === 400) return error.extra?.param as string
    throw error
  }
  return undefined
}

t.test('chunking_strategy: absent, null, auto, JSON text and the SDK bracket fields', async (t) => {
  t.equal(parseChunking(form({})), null)
  t.equal(parseChunking(form({ chunking_strategy: ['null'] })), null)
  t.same(parseChunking(form({ chunking_strategy: ['auto'] })), {})
  t.same(
    parseChunking(
      form({ chunking_strategy: ['{"type":"server_vad","threshold":0.3,"silence_duration_ms":200}'] }),
    ),
    { threshold: 0.3, minSilenceSeconds: 0.2 },
  )
  t.same(
    parseChunking(
      form({ 'chunking_strategy[type]': ['server_vad'], 'chunking_strategy[prefix_padding_ms]': ['300'] }),
    ),
    { paddingSeconds: 0.3 },
  )
  const bads: Record<string, string[]>[] = [
    { chunking_strategy: ['{"type":"semantic_vad"}'] },
    { chunking_strategy: ['{'] },
    { chunking_strategy: ['[]'] },
    { 'chunking_strategy[type]': ['server_vad'], 'chunking_strategy[threshold]': ['2'] },
    { 'chunking_strategy[type]': ['server_vad'], 'chunking_strategy[eagerness]': ['low'] },
  ]
  for (const bad of bads) {
    t.equal(
      param(() => parseChunking(form(bad))),
      'chunking_strategy',
      JSON.stringify(bad),
    )
  }
})

t.test('keywords: trimmed, duplicates once, refused entries named', async (t) => {
  t.same(parseKeywords(['  New   York ', 'new york', 'Kubernetes']), ['New York', 'Kubernetes'])
  t.equal(
    param(() => parseKeywords([''])),
    'keywords',
  )
  t.equal(
    param(() => parseKeywords(['a\u0007b'])),
    'keywords',
  )
})

t.test('languages, include, diarization', async (t) => {
  t.same(parseLanguages(['EN', 'fr', 'en'], undefined), ['en', 'fr'])
  t.equal(parseLanguages([''], undefined), undefined)
  t.equal(
    param(() => parseLanguages(['english'], undefined)),
    'languages',
  )
  t.equal(
    param(() => parseInclude(['tokens'], 'json')),
    'include',
  )
  t.equal(parseInclude([], 'text'), false)
  t.equal(
    param(() => refuseDiarization(form({ known_speaker_references: ['data:,'] }))),
    'known_speaker_references',
  )
  t.doesNotThrow(() => refuseDiarization(form({ response_format: ['json'] })))
})
