/**
 * A plugin error's message names the plugin (issue 12 item 4): an AI provider's error names it and the
 * operation and keeps its cause, secrets redacted. An engine's error crossing from its host process:
 * test/process/engine-isolation/plugin-errors.test.ts.
 */
import t from 'tap'
import type { DictumError } from '../../errors/catalogue.ts'
import { build, injectJson } from '../helpers/build.ts'

t.test(
  "a provider's error names it and the operation and keeps its cause, its secrets redacted",
  async (t) => {
    const app = await build(t, {
      ai: {
        provider: 'fixture-upper',
        providers: { 'fixture-upper': { behaviour: 'fail', apiKey: 'sk-hidden-4242' } },
      },
    })
    const res = await injectJson(app, 'POST', '/v1/postprocess', { text: 'hello' })
    t.equal(res.status, 400)
    t.equal(res.body.code, 'PROVIDER_FAILED')
    t.equal(
      res.body.error,
      'AI provider failed: Fixture Upper: process: upstream said 401 for key [redacted].',
    )

    const error = (await app.dictum.providers.process('hello').catch((e: unknown) => e)) as DictumError
    t.equal(error.message, res.body.error)
    const cause = error.cause as Error
    t.equal(cause.message, 'upstream said 401 for key [redacted]', "the provider's own message, redacted")
    t.notMatch(String(cause.stack), /sk-hidden-4242/, 'no secret in the stack either')
    t.match(cause.stack, /good-provider\.ts/, "the provider's stack")
  },
)
