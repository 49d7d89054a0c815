/**
 * One secrets module, one pattern of secret names (issue 12 item 4): `dictum config` masks and error messages
 * redact the same names, a variable's name (`apiKeyEnv`) is not a secret, a variable's value is.
 */
import t from 'tap'
import {
  isSecretName,
  maskSecrets,
  maskUrlSecrets,
  redact,
  redactError,
  secretValues,
} from '../../lib/secrets.ts'
import { build, injectJson } from '../helpers/build.ts'
import { deadUrl } from '../helpers/vendor-servers/provider-harness.ts'

t.test('one pattern of secret names, for config keys, header names and environment variables', async (t) => {
  for (const name of [
    'apiKey',
    'api_key',
    'apikey',
    'X-Api-Key',
    'token',
    'GITHUB_TOKEN',
    'OPENAI_API_KEY',
  ]) {
    t.ok(isSecretName(name), `${name} holds a secret`)
  }
  for (const name of ['MY_CLAUDE_KEY', 'Authorization', 'password', 'clientSecret']) {
    t.ok(isSecretName(name), `${name} holds a secret`)
  }
  for (const name of ['apiKeyEnv', 'maxTokens', 'tokens', 'monkey', 'keyHint', 'baseUrl', 'secretOptions']) {
    t.notOk(isSecretName(name), `${name} holds no secret`)
  }
})

t.test('what dictum config masks is what error messages redact', async (t) => {
  const options = {
    baseUrl: 'http://localhost:1',
    apiKey: 'key-value-0001',
    apiKeyEnv: 'OPENAI_API_KEY',
    nested: { accessToken: 'token-value-0002', maxTokens: 5 },
  }
  const masked = maskSecrets(options)
  t.same(masked, { ...options, apiKey: '***', nested: { accessToken: '***', maxTokens: 5 } })
  t.same(secretValues(options), ['key-value-0001', 'token-value-0002'], 'the same two values')
  const message = 'sent key-value-0001 and token-value-0002, read OPENAI_API_KEY'
  t.equal(redact(message, secretValues(options)), 'sent [redacted] and [redacted], read OPENAI_API_KEY')
})

t.test(
  'the one URL masking: credentials and signature parameters, in text, records and config',
  async (t) => {
    const cases: Array<[string, string]> = [
      ['http://admin:S3CRET-PW@host/a.wav', 'http://***@host/a.wav'],
      ['https://h/a.wav?sig=abc123&x=1', 'https://h/a.wav?sig=***&x=1'],
      [
        'https://b.s3.amazonaws.com/a.mp3?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=f00d&X-Amz-Expires=60',
        'https://b.s3.amazonaws.com/a.mp3?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=60',
      ],
      [
        'https://a.blob.core.windows.net/c/a.wav?sv=2024&se=2025&sp=r&sig=9z%2B',
        'https://a.blob.core.windows.net/c/a.wav?sv=2024&se=2025&sp=r&sig=***',
      ],
      [
        'https://h/x?Policy=p&Signature=s&Key-Pair-Id=k',
        'https://h/x?Policy=***&Signature=***&Key-Pair-Id=***',
      ],
      ['https://h/cb?code=4/0Ad&state=s', 'https://h/cb?code=***&state=s'],
      ['https://h/p#access_token=tok&token_type=bearer', 'https://h/p#access_token=***&token_type=bearer'],
      ['https://h/p?api-key=k1&api-version=2024', 'https://h/p?api-key=***&api-version=2024'],
      ['redis://:pw@127.0.0.1:6379/0', 'redis://***@127.0.0.1:6379/0'],
      ['https://h/a.wav?lang=en', 'https://h/a.wav?lang=en'],
    ]
    for (const [url, masked] of cases) {
      t.equal(maskUrlSecrets(url), masked, url)
      t.equal(redact(`fetching ${url} failed`), `fetching ${masked} failed`, 'the same in a message')
    }
    t.same(maskSecrets({ baseUrl: 'https://u:p@h/v1?api-key=k2' }), {
      baseUrl: 'https://***@h/v1?api-key=***',
    })
    t.equal(maskUrlSecrets('no URL here: sig=abc'), 'no URL here: sig=abc', 'only inside URLs')
  },
)

t.test("a provider's secretOptions are secret to both, whatever their name", async (t) => {
  const options = { passphrase: 'open-sesame-42', model: 'm' }
  t.same(maskSecrets(options, ['passphrase']), { passphrase: '***', model: 'm' })
  t.same(secretValues(options, ['passphrase']), ['open-sesame-42'])
  t.same(secretValues(options), [], 'not a secret by its name alone')
})

t.test('redactError keeps the error when it holds no secret, else a redacted copy', async (t) => {
  const clean = new Error('nothing to hide')
  t.equal(redactError(clean, ['s3cret-value']), clean)
  const leaky = new TypeError('sent s3cret-value')
  const copy = redactError(leaky, ['s3cret-value']) as Error
  t.not(copy, leaky)
  t.equal(copy.name, 'TypeError')
  t.equal(copy.message, 'sent [redacted]')
  t.notMatch(String(copy.stack), /s3cret-value/)
})

t.test("a provider's error keeps the name of the variable it reads its key from", async (t) => {
  // Before: the registry took every option whose name contained "key" for a secret, so the message said
  // "set apiKey or the *** environment variable".
  const saved = process.env.ANTHROPIC_API_KEY
  delete process.env.ANTHROPIC_API_KEY
  t.teardown(() => {
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved
  })
  const app = await build(t, {
    ai: { provider: 'anthropic', providers: { anthropic: { baseUrl: await deadUrl() } } },
  })
  const res = await injectJson(app, 'POST', '/v1/postprocess', { text: 'hello' })
  t.equal(res.status, 400)
  t.equal(
    res.body.error,
    'AI provider failed: Anthropic: process: no API key: set apiKey or the ANTHROPIC_API_KEY environment variable.',
  )
})

t.test('a remote engine whose baseUrl is not a URL says so without its credentials', async (t) => {
  const remote = (await import('../../engines/remote/index.ts')).default
  const baseUrl = 'https://admin:S3CRET-PW@speech.example:99999/v1?api-key=K3Y-VALUE'
  const probe = (await remote.probe?.({ options: { baseUrl, model: 'm' } } as never)) as
    | { available: boolean; reason?: string }
    | undefined
  t.equal(probe?.available, false)
  t.notMatch(JSON.stringify(probe), /S3CRET-PW|K3Y-VALUE/)
  t.match(probe?.reason, /baseUrl https:\/\/\*\*\*@speech\.example:99999\/v1\?api-key=\*\*\* is not a URL/)
  const name = remote.displayName as (options: never) => string
  t.equal(
    name({ baseUrl, model: 'm' } as never),
    'Remote: m at https://***@speech.example:99999/v1?api-key=***',
  )
})
