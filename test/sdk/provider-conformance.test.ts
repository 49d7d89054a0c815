/**
 * The provider conformance suite derives its prompt check from `capabilities.usesPrompt`: the kernel passes
 * a prompt to every provider, so one declaring it must take it (and, where the case can tell, use it), and
 * one not declaring it must give the same text with or without one. Run against small fixture providers and
 * a recorder that collects failures.
 */
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { defineProvider } from '../../kernel/contracts/provider.ts'
import { renderPrompt } from '../../sdk/prompt.ts'
import { runProviderContract } from '../../sdk/testing/provider-suite.ts'
import { findings } from '../helpers/conformance-recorder.ts'

type Behaviour = 'uses-prompt' | 'ignores-prompt' | 'throws-on-prompt'

/** Answers in capitals: the prompt rendered around the text when it uses one, else the text alone. */
function fixture(usesPrompt: boolean, behaviour: Behaviour) {
  return defineProvider({
    id: 'fixture-capitals',
    displayName: 'Fixture capitals',
    optionsSchema: Type.Object({}),
    capabilities: () => ({ local: true, usesPrompt }),
    create: () => ({
      async process({ text, prompt }, signal) {
        signal.throwIfAborted()
        if (prompt && behaviour === 'throws-on-prompt') throw new Error('prompts are not supported')
        const answer = prompt && behaviour === 'uses-prompt' ? renderPrompt(prompt, text) : text
        return { text: answer.toUpperCase(), model: 'capitals-1' }
      },
    }),
  })
}

const run = (usesPrompt: boolean, behaviour: Behaviour, expectPromptedText?: RegExp) =>
  findings((t) =>
    runProviderContract(t, {
      definition: fixture(usesPrompt, behaviour),
      options: {},
      text: 'hello world',
      ...(expectPromptedText ? { expectPromptedText } : {}),
    }),
  )

t.test('a provider that declares usesPrompt and uses it passes', async (t) => {
  const found = await run(true, 'uses-prompt', /^FIX THE PUNCTUATION OF THIS NOTE.*: HELLO WORLD$/)
  t.same(found.failures, [])
  t.ok(found.passes > 10, `checks passed (${found.passes})`)
})

t.test('a provider without usesPrompt that ignores the prompt passes', async (t) => {
  t.same((await run(false, 'ignores-prompt')).failures, [])
})

t.test('fails a provider without usesPrompt whose answer changes with the prompt', async (t) => {
  const { failures } = await run(false, 'uses-prompt')
  t.match(failures, [
    /a prompt \(capabilities\.usesPrompt\): the prompt is ignored \(capabilities\.usesPrompt is false\)/,
  ])
  t.equal(failures.length, 1, failures.join(' | '))
})

t.test('fails a provider that declares usesPrompt but throws when given one', async (t) => {
  const { failures } = await run(true, 'throws-on-prompt')
  t.match(failures, [
    /a prompt \(capabilities\.usesPrompt\): process with a prompt threw: prompts are not supported/,
  ])
  t.equal(failures.length, 1, failures.join(' | '))
})

t.test('fails a provider that declares usesPrompt but ignores it, where the case can tell', async (t) => {
  const { failures } = await run(true, 'ignores-prompt', /^FIX THE PUNCTUATION/)
  t.match(failures, [/a prompt \(capabilities\.usesPrompt\): the prompt is used \(found "HELLO WORLD"/])
  t.equal(failures.length, 1, failures.join(' | '))
})
