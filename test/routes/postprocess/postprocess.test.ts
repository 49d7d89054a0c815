import t from 'tap'
import { timeLimitMs } from '../../../kernel/provider-registry.ts'
import { build, injectJson } from '../../helpers/build.ts'

const text = (app: Awaited<ReturnType<typeof build>>, payload: Buffer | string, contentType = 'text/plain') =>
  app.inject({ method: 'POST', url: '/v1/postprocess', headers: { 'content-type': contentType }, payload })

t.test('no provider configured: 400 with the catalogue message', async (t) => {
  const app = await build(t)
  const res = await injectJson(app, 'POST', '/v1/postprocess', { text: 'hello' })
  t.equal(res.status, 400)
  t.same(res.body, { error: 'No AI provider is configured.', code: 'NO_AI_PROVIDER' })
})

t.test('request parsing errors come first, with the spec’s messages', async (t) => {
  const app = await build(t)
  const badJson = await injectJson(app, 'POST', '/v1/postprocess', '{"text": ')
  t.same(badJson.body, { error: 'Invalid JSON text payload.', code: 'INVALID_TEXT_JSON' })
  t.equal(badJson.status, 400)
  const notUtf8 = await text(app, Buffer.from([0x68, 0x69, 0xff, 0xfe]))
  t.equal(notUtf8.statusCode, 400)
  t.same(notUtf8.json(), { error: 'Text body must be UTF-8.', code: 'TEXT_NOT_UTF8' })
  const empty = await text(app, '')
  t.equal(empty.statusCode, 400)
  t.equal(empty.json().code, 'EMPTY_TEXT')
  const blank = await injectJson(app, 'POST', '/v1/postprocess', { text: '  \n ' })
  t.equal(blank.body.code, 'EMPTY_TEXT')
  const missing = await injectJson(app, 'POST', '/v1/postprocess', { txt: 'x' })
  t.equal(missing.status, 400)
  t.equal(missing.body.code, 'MISSING_TEXT')
  const wrongType = await injectJson(app, 'POST', '/v1/postprocess', { text: 42 })
  t.equal(wrongType.status, 400)
  t.match(wrongType.body.error, /"text" must be a string/)
})

t.test('with a provider: JSON and plain text give { text, provider, model }', async (t) => {
  const app = await build(t, { ai: { provider: 'fixture-upper' } })
  const json = await injectJson(app, 'POST', '/v1/postprocess', { text: 'hello world' })
  t.equal(json.status, 200)
  t.same(json.body, { text: 'HELLO WORLD', provider: 'fixture-upper', model: 'upper-1' })
  const plain = await text(app, 'ça va')
  t.same(plain.json(), { text: 'ÇA VA', provider: 'fixture-upper', model: 'upper-1' })
  const form = await text(app, 'curl default', 'application/x-www-form-urlencoded')
  t.equal(form.json().text, 'CURL DEFAULT', 'curl -d bodies count as plain text')
})

t.test('the configured prompt reaches the provider', async (t) => {
  const app = await build(t, {
    ai: { provider: 'fixture-upper', providers: { 'fixture-upper': { prompt: 'P' } } },
  })
  t.equal((await injectJson(app, 'POST', '/v1/postprocess', { text: 'x' })).body.text, '[P] X')
})

t.test('provider failure: 400 naming the provider, never the API key', async (t) => {
  const app = await build(t, {
    ai: {
      provider: 'fixture-upper',
      providers: { 'fixture-upper': { behaviour: 'fail', apiKey: 'sk-very-secret-123' } },
    },
  })
  const res = await injectJson(app, 'POST', '/v1/postprocess', { text: 'x' })
  t.equal(res.status, 400)
  t.equal(res.body.code, 'PROVIDER_FAILED')
  t.match(res.body.error, /^AI provider failed: Fixture Upper: process: upstream said 401/)
  t.notMatch(JSON.stringify(res.body), /sk-very-secret-123/)
})

t.test('provider timeout: 400 after ai.timeoutMs', async (t) => {
  const app = await build(t, {
    ai: { provider: 'fixture-upper', timeoutMs: 200, providers: { 'fixture-upper': { behaviour: 'hang' } } },
  })
  const res = await injectJson(app, 'POST', '/v1/postprocess', { text: 'x' })
  t.equal(res.status, 400)
  t.equal(res.body.code, 'PROVIDER_TIMEOUT')
  t.match(res.body.error, /Fixture Upper did not answer within 200 ms/)
})

t.test("a provider's own timeoutMs is its limit; ai.timeoutMs, when set, caps it", async (t) => {
  const hang = (ai: Record<string, unknown>, timeoutMs: number) =>
    build(t, {
      ai: {
        provider: 'fixture-upper',
        ...ai,
        providers: { 'fixture-upper': { behaviour: 'hang', timeoutMs } },
      },
    })
  // ai.timeoutMs was 30 s by default and always won: a provider's own limit could only be shorter.
  const own = await injectJson(await hang({}, 300), 'POST', '/v1/postprocess', { text: 'x' })
  t.equal(own.status, 400)
  t.equal(own.body.code, 'PROVIDER_TIMEOUT')
  t.match(own.body.error, /Fixture Upper did not answer within 300 ms/)
  const capped = await injectJson(await hang({ timeoutMs: 200 }, 60_000), 'POST', '/v1/postprocess', {
    text: 'x',
  })
  t.match(capped.body.error, /Fixture Upper did not answer within 200 ms/)
  t.equal(timeLimitMs(null, { timeoutMs: 60_000 }), 60_000, "Ollama's 60 s default can fire")
  t.equal(timeLimitMs(null, {}), 30_000, 'a provider without timeoutMs: 30 s')
  t.equal(timeLimitMs(45_000, { timeoutMs: 60_000 }), 45_000, 'the shorter wins')
})
