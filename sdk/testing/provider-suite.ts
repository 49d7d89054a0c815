/**
 * The conformance suite every AI post-processing provider runs (built-in ones and test fakes alike): the
 * definition is well formed, the options schema accepts the given options, an instance processes text,
 * honours an aborted signal, and closes twice without complaint. The capabilities decide the prompt check:
 * the kernel passes a prompt (per-app or configured) to every provider, so one that declares `usesPrompt`
 * must take it and one that does not must ignore it. `local` is reported, not exercised (the suite cannot
 * see where a provider's requests go).
 */

import os from 'node:os'
import { Kind } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { ProviderDefinition, ProviderInstance } from '../../kernel/contracts/provider.ts'
import { TRANSCRIPT_PLACEHOLDER } from '../plugin.ts'
import { attempt, type ConformanceTest as Test } from './conformance-test.ts'

export interface ProviderContractCase {
  definition: ProviderDefinition
  /** Options as a user would write them in config (defaults are applied here, as the kernel does). */
  options: Record<string, unknown>
  /** Text sent through `process` (default: a short dictation). */
  text?: string
  /** What `process` must return for `text`. */
  expectText?: string | RegExp
  /**
   * Options under which a request stays in flight until aborted (a server that never answers). When given,
   * the suite also checks that aborting the signal mid-request rejects.
   */
  hangingOptions?: Record<string, unknown>
  /** The prompt sent with `text` (default: {@link SAMPLE_PROMPT}). */
  prompt?: string
  /**
   * What `process` must return for `text` under `prompt`, when the provider can say (a test server that
   * echoes the request): shows that a provider declaring `usesPrompt` uses it.
   */
  expectPromptedText?: string | RegExp
}

const DEFAULT_TEXT = 'um hello world this is a test'
/** A prompt as a user writes one in `ai.appPrompts`: instructions around the transcript placeholder. */
export const SAMPLE_PROMPT = `Fix the punctuation of this note, reply with the text only: ${TRANSCRIPT_PLACEHOLDER}`
const SAMPLE_APP = 'Notes'

export async function runProviderContract(t: Test, contract: ProviderContractCase): Promise<void> {
  const { definition } = contract
  const text = contract.text ?? DEFAULT_TEXT
  const options = resolve(t, definition, contract.options)

  await t.test(`${definition.id}: definition`, async (t: Test) => {
    t.match(definition.id, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'id is lower-case letters, digits and dashes')
    t.ok(definition.displayName.trim(), 'has a display name')
    t.ok(Kind in definition.optionsSchema, 'optionsSchema is a TypeBox schema')
    t.ok(Value.Check(definition.optionsSchema, options), 'the options are valid once defaults are applied')
    const capabilities = definition.capabilities(options as never)
    t.type(capabilities.local, 'boolean', 'capabilities.local is a boolean')
    t.type(capabilities.usesPrompt, 'boolean', 'capabilities.usesPrompt is a boolean')
    const properties = (definition.optionsSchema as { properties?: Record<string, unknown> }).properties ?? {}
    for (const key of definition.secretOptions ?? [])
      t.ok(key in properties, `secret option ${key} is an option`)
    if (definition.defaultModel)
      t.ok(definition.defaultModel(options as never).trim(), 'defaultModel names one')
  })

  await t.test(`${definition.id}: process`, async (t: Test) => {
    const instance = await createInstance(t, definition, options)
    await instance.load?.()
    const result = await instance.process({ text }, new AbortController().signal)
    t.type(result.text, 'string', 'returns text')
    t.ok(result.text.trim(), 'the text is not blank')
    t.type(result.model, 'string', 'names the model')
    t.ok(result.model.trim(), 'the model is not blank')
    if (contract.expectText !== undefined)
      t.match(result.text, contract.expectText, 'returns the expected text')
  })

  await t.test(`${definition.id}: a prompt (capabilities.usesPrompt)`, async (t: Test) => {
    const { usesPrompt } = definition.capabilities(options as never)
    const instance = await createInstance(t, definition, options)
    await instance.load?.()
    const signal = new AbortController().signal
    const prompt = contract.prompt ?? SAMPLE_PROMPT
    const prompted = await attempt(t, 'process with a prompt', () =>
      instance.process({ text, prompt, appName: SAMPLE_APP }, signal),
    )
    if (!prompted) return
    if (usesPrompt) {
      t.ok(typeof prompted.text === 'string' && prompted.text.trim(), 'returns text under a prompt')
      t.ok(typeof prompted.model === 'string' && prompted.model.trim(), 'names the model under a prompt')
      if (contract.expectPromptedText !== undefined)
        t.match(prompted.text, contract.expectPromptedText, 'the prompt is used')
    } else {
      const plain = await instance.process({ text }, signal)
      t.equal(prompted.text, plain.text, 'the prompt is ignored (capabilities.usesPrompt is false)')
    }
  })

  await t.test(`${definition.id}: an aborted signal rejects`, async (t: Test) => {
    const instance = await createInstance(t, definition, options)
    const controller = new AbortController()
    controller.abort()
    const error = await failure(t, instance.process({ text }, controller.signal))
    t.ok(error.message.trim(), 'the error says something')
    assertNoSecrets(t, definition, contract.options, error)
  })

  if (contract.hangingOptions) {
    const hanging = resolve(t, definition, contract.hangingOptions)
    await t.test(`${definition.id}: aborting mid-request rejects`, async (t: Test) => {
      const instance = await createInstance(t, definition, hanging)
      const controller = new AbortController()
      const pending = failure(t, instance.process({ text }, controller.signal))
      setImmediate(() => controller.abort())
      const error = await pending
      t.not(error.name, 'TimeoutError', 'an abort is not reported as a timeout')
      assertNoSecrets(t, definition, contract.hangingOptions ?? {}, error)
    })
  }

  await t.test(`${definition.id}: close twice`, async (t: Test) => {
    const instance = await createInstance(t, definition, options)
    await instance.close?.()
    await instance.close?.()
    t.pass('closing twice does not throw')
  })
}

function resolve(t: Test, definition: ProviderDefinition, raw: Record<string, unknown>): unknown {
  const { value, problems } = resolveOptions(definition, raw)
  t.same(problems, [], 'the options schema accepts the options')
  return value
}

function assertNoSecrets(
  t: Test,
  definition: ProviderDefinition,
  options: Record<string, unknown>,
  error: Error,
) {
  for (const key of definition.secretOptions ?? []) {
    const secret = options[key]
    if (typeof secret === 'string')
      t.notOk(error.message.includes(secret), `the message does not contain ${key}`)
  }
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

/** Applies the schema's defaults to config-style options, as the kernel does, and lists what is invalid. */
export function resolveOptions(
  definition: ProviderDefinition,
  raw: Record<string, unknown>,
): { value: unknown; problems: string[] } {
  const value = Value.Default(definition.optionsSchema, structuredClone(raw))
  const problems = [...Value.Errors(definition.optionsSchema, value)].map((e) => `${e.path}: ${e.message}`)
  return { value, problems }
}

/** Creates an instance from resolved options; it is closed when the test ends. */
export async function createInstance(
  t: Pick<Test, 'teardown'>,
  definition: ProviderDefinition,
  options: unknown,
): Promise<ProviderInstance> {
  const instance = await definition.create({ options: options as never, dataDir: os.tmpdir(), logger: quiet })
  t.teardown(() => instance.close?.())
  return instance
}

/** The Error a promise rejects with; fails the test when it resolves. */
export async function failure(t: Pick<Test, 'fail' | 'ok'>, work: Promise<unknown>): Promise<Error> {
  try {
    const value = await work
    t.fail(`expected a rejection, got ${JSON.stringify(value)}`)
  } catch (err) {
    t.ok(err instanceof Error, 'rejects with an Error')
    return err as Error
  }
  return new Error('resolved')
}
