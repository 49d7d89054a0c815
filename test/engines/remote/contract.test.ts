/**
 * The engine contract suite on the remote engine against a local server answering like Whisper, plus the
 * cheap parts of the definition: display name, capabilities, probe, where the API key comes from.
 */
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import remote from '../../../engines/remote/index.ts'
import { type RemoteOptions, resolveApiKey } from '../../../engines/remote/options.ts'
import { runEngineContract } from '../../../sdk/testing/engine-suite.ts'
import { startTranscriptionServer, verboseReply } from './transcription-server.ts'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const options = (raw: Record<string, unknown>) =>
  Value.Default(remote.optionsSchema, structuredClone(raw)) as RemoteOptions
const probe = (raw: Record<string, unknown>) =>
  remote.probe!({ options: options(raw), dataDir: '/x', modelsDir: '/x', logger: quiet })

const server = await startTranscriptionServer(t, () => ({ json: verboseReply('go forward ten meters') }))
await runEngineContract(t, {
  definition: remote,
  options: { baseUrl: server.baseUrl },
  samples: Float32Array.from({ length: 32000 }, (_, i) => 0.2 * Math.sin(i / 9)),
  expectText: 'go forward ten meters',
})

t.test('display name says where the audio goes; capabilities follow the options', async (t) => {
  const name = remote.displayName as (o: RemoteOptions) => string
  t.equal(name(options({})), 'Remote: whisper-1 at api.openai.com')
  t.equal(
    name(options({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'base.en' })),
    'Remote: base.en at 127.0.0.1:8000',
  )
  t.match(remote.capabilities(options({})), {
    customWords: false,
    wordTimestamps: false,
    segmentTimestamps: true,
    languages: ['*'],
    maxAudioSeconds: 600,
  })
  t.match(
    remote.capabilities(options({ model: 'gpt-4o-transcribe', wordTimestamps: true, language: 'de' })),
    {
      wordTimestamps: false,
      segmentTimestamps: false,
      languages: ['de'],
    },
  )
  t.equal(remote.isolation, 'none')
})

t.test('probe: hosted APIs need a key; any other server is available', async (t) => {
  process.env.DICTUM_TEST_REMOTE_KEY = 'from-env'
  t.teardown(() => {
    delete process.env.DICTUM_TEST_REMOTE_KEY
  })
  const missing = await probe({ apiKeyEnv: 'DICTUM_TEST_REMOTE_UNSET' })
  t.match(missing, {
    available: false,
    reason: 'api.openai.com needs an API key and none is configured',
    fix: 'Set speech.engines.remote.apiKey or the environment variable DICTUM_TEST_REMOTE_UNSET.',
  })
  t.same(await probe({ apiKeyEnv: 'DICTUM_TEST_REMOTE_KEY' }), { available: true })
  t.same(await probe({ baseUrl: 'https://api.groq.com/openai/v1', apiKey: 'k' }), { available: true })
  t.same(await probe({ baseUrl: 'http://127.0.0.1:1/v1' }), { available: true }, 'local servers need no key')
})

t.test('the API key: apiKey, else the env named by apiKeyEnv, else the host’s usual variable', async (t) => {
  const env = { OPENAI_API_KEY: 'openai-key', GROQ_API_KEY: 'groq-key', MINE: 'mine' }
  t.equal(resolveApiKey(options({ apiKey: 'given' }), env), 'given')
  t.equal(resolveApiKey(options({}), env), 'openai-key')
  t.equal(resolveApiKey(options({ baseUrl: 'https://api.groq.com/openai/v1' }), env), 'groq-key')
  t.equal(resolveApiKey(options({ baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'MINE' }), env), 'mine')
  t.equal(
    resolveApiKey(options({ baseUrl: 'https://transcribe.example.com/v1' }), env),
    null,
    'an OpenAI key is never sent to another server unless asked',
  )
})
