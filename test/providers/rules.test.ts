import { Value } from '@sinclair/typebox/value'
import t, { type Test } from 'tap'
import rules from '../../providers/rules/index.ts'
import { runProviderContract } from '../../sdk/testing/provider-suite.ts'
import { failure, makeProvider, run } from '../helpers/vendor-servers/provider-harness.ts'

await runProviderContract(t, {
  definition: rules,
  options: {},
  text: 'um hello world comma this is a test period',
  expectText: /^Hello world, this is a test\.$/,
})

async function processWith(t: Test, options: Record<string, unknown>, text: string) {
  return run(await makeProvider(t, rules, options), { text })
}

t.test('reports the model "rules" and is local without a prompt', async (t) => {
  const result = await processWith(t, {}, 'hello')
  t.equal(result.model, 'rules')
  t.same(rules.capabilities({} as never), { local: true, usesPrompt: false })
})

t.test('each step can be switched off', async (t) => {
  const text = 'um i think so comma yes'
  t.equal((await processWith(t, {}, text)).text, 'I think so, yes')
  t.equal((await processWith(t, { fillers: false }, text)).text, 'Um I think so, yes')
  t.equal((await processWith(t, { punctuation: false }, text)).text, 'I think so comma yes')
  t.equal((await processWith(t, { capitalize: false }, text)).text, 'i think so, yes')
  t.equal(
    (await processWith(t, { fillers: false, punctuation: false, capitalize: false }, '  um  i think  so '))
      .text,
    'um i think so',
    'with every step off only the spacing is tidied',
  )
})

t.test('extra fillers are removed as whole words or phrases, case-insensitively', async (t) => {
  const options = { extraFillers: ['basically', 'You know,', 'sort of'] }
  t.equal((await processWith(t, options, 'basically you know it is sort of done')).text, 'It is done')
  t.equal((await processWith(t, options, 'Basically, it works.')).text, 'It works.')
  t.equal(
    (await processWith(t, options, 'the basic idea is sound')).text,
    'The basic idea is sound',
    'not inside words',
  )
  t.equal((await processWith(t, options, 'you knowingly did it')).text, 'You knowingly did it')
})

t.test('unknown options are rejected, so config typos show up', async (t) => {
  t.notOk(
    Value.Check(rules.optionsSchema, {
      fillers: true,
      punctuation: true,
      capitalize: true,
      extraFillers: [],
      filler: false,
    }),
  )
  t.notOk(
    Value.Check(rules.optionsSchema, {
      fillers: 'yes',
      punctuation: true,
      capitalize: true,
      extraFillers: [],
    }),
  )
})

t.test('an aborted signal rejects with an AbortError', async (t) => {
  const controller = new AbortController()
  controller.abort()
  const error = await failure(t, run(await makeProvider(t, rules, {}), {}, controller.signal))
  t.equal(error.name, 'AbortError')
  t.equal(error.message, 'rules: the request was aborted')
})
