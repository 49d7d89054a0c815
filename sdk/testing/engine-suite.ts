/**
 * The conformance suite every speech engine runs (built-in ones and test fakes alike): the definition is
 * well formed, the options schema accepts the options, an instance loads idempotently, transcribes real
 * samples and empty audio into well-formed, structured-cloneable results, and closes twice.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Kind, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type {
  EngineCapabilities,
  EngineDefinition,
  EngineInstance,
  EngineTranscribeResult,
  PluginLogger,
} from '../../kernel/contracts/engine.ts'
import type { ConformanceTest as Test } from './conformance-test.ts'

export interface EngineContractCase<S extends TSchema> {
  definition: EngineDefinition<S>
  /** Options as a user would write them in config (defaults are applied here, as the kernel does). */
  options: Record<string, unknown>
  /** 16 kHz mono speech, no longer than the engine's maxAudioSeconds. */
  samples: Float32Array
  /** What the transcript of `samples` must match, when the engine is deterministic enough to say. */
  expectText?: RegExp | string
}

const SAMPLE_RATE = 16000
const silentLogger: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} }

export async function runEngineContract<S extends TSchema>(t: Test, c: EngineContractCase<S>): Promise<void> {
  // One parent test: awaits between the checks must not let tap end the caller's test early.
  await t.test(`${c.definition.id}: engine contract`, (t: Test) => contract(t, c))
}

async function contract<S extends TSchema>(t: Test, c: EngineContractCase<S>): Promise<void> {
  const { definition } = c
  const options = resolveOptions(t, definition.optionsSchema, c.options) as Static<S>
  const dataDir = mkdtempSync(path.join(tmpdir(), `dictum-contract-${definition.id}-`))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const context = { options, dataDir, modelsDir: path.join(dataDir, 'models'), logger: silentLogger }

  await t.test(`${definition.id}: definition`, async (t: Test) => {
    t.match(definition.id, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'id is lower-case letters, digits and dashes')
    const name =
      typeof definition.displayName === 'function' ? definition.displayName(options) : definition.displayName
    t.ok(typeof name === 'string' && name.trim(), 'has a display name')
    if (definition.description !== undefined) t.type(definition.description, 'string')
    t.ok((definition.optionsSchema as Record<symbol, unknown>)[Kind], 'optionsSchema is a TypeBox schema')
    t.ok([undefined, 'process', 'none'].includes(definition.isolation), 'isolation is process, none or unset')
    checkCapabilities(t, definition.capabilities(options), c.samples)
    if (definition.probe) {
      const probe = await definition.probe(context)
      t.type(probe.available, 'boolean', 'probe says whether it is available')
      if (!probe.available) t.ok(probe.reason.trim(), 'an unavailable probe gives a reason')
    }
  })

  const probe = (await definition.probe?.(context)) ?? { available: true }
  if (!probe.available) {
    await t.test(
      `${definition.id}: instance checks`,
      { skip: `engine unavailable: ${probe.reason}` },
      () => {},
    )
    return
  }

  await t.test(
    `${definition.id}: load is idempotent, transcribe returns a well-formed result`,
    async (t: Test) => {
      const instance = await create(t, definition, context)
      await Promise.all([instance.load(), instance.load()])
      await instance.load()
      const result = await instance.transcribe({ samples: c.samples, customWords: [] })
      checkResult(t, result, c.samples.length / SAMPLE_RATE)
      if (c.expectText !== undefined) t.match(result.text, c.expectText, 'the transcript is the expected one')
      const again = await instance.transcribe({ samples: c.samples, customWords: [] })
      t.equal(again.text, result.text, 'a loaded instance gives the same text twice')
    },
  )

  await t.test(`${definition.id}: empty audio`, async (t: Test) => {
    const instance = await create(t, definition, context)
    await instance.load()
    const result = await instance.transcribe({ samples: new Float32Array(0), customWords: [] })
    checkResult(t, result, 0)
    t.equal(result.text.trim(), '', 'no audio, no words')
  })

  await t.test(`${definition.id}: close twice`, async (t: Test) => {
    const unused = await definition.create(context)
    await unused.close()
    await unused.close()
    const loaded = await definition.create(context)
    await loaded.load()
    await loaded.close()
    await loaded.close()
    t.pass('closing twice, loaded or not, does not throw')
  })
}

function resolveOptions(t: Test, schema: TSchema, raw: Record<string, unknown>): unknown {
  const value = Value.Default(schema, structuredClone(raw))
  const problems = [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`)
  t.same(problems, [], 'the options schema accepts the options')
  return value
}

function checkCapabilities(t: Test, capabilities: EngineCapabilities, samples: Float32Array): void {
  for (const key of ['customWords', 'wordTimestamps', 'segmentTimestamps'] as const) {
    t.type(capabilities[key], 'boolean', `capabilities.${key} is a boolean`)
  }
  t.ok(Array.isArray(capabilities.languages) && capabilities.languages.length > 0, 'languages are listed')
  t.ok(
    capabilities.languages.every((l) => l === '*' || /^[a-z]{2,3}(-[A-Za-z0-9]+)*$/.test(l)),
    'languages are codes or *',
  )
  const max = capabilities.maxAudioSeconds
  t.ok(max === null || (typeof max === 'number' && max > 0), 'maxAudioSeconds is null or positive')
  if (typeof max === 'number')
    t.ok(samples.length / SAMPLE_RATE <= max, 'the test samples fit maxAudioSeconds')
}

function checkResult(t: Test, result: EngineTranscribeResult, seconds: number): void {
  t.type(result.text, 'string', 'text is a string')
  const { confidence } = result
  t.ok(
    confidence === null || (confidence >= 0 && confidence <= 1),
    `confidence is null or 0..1 (${confidence})`,
  )
  t.doesNotThrow(() => structuredClone(result), 'the result can cross a process boundary')
  const slack = 0.05
  for (const timed of [...(result.words ?? []), ...(result.segments ?? [])]) {
    const label = 'word' in timed ? timed.word : timed.text
    if (!(timed.start >= 0 && timed.start <= timed.end && timed.end <= seconds + slack)) {
      t.fail(`timing of "${label}" is within the audio (${timed.start}..${timed.end} of ${seconds} s)`)
      return
    }
  }
  for (const word of result.words ?? []) {
    if (word.confidence !== undefined && !(word.confidence >= 0 && word.confidence <= 1)) {
      t.fail(`word confidence of "${word.word}" is 0..1 (${word.confidence})`)
      return
    }
  }
  t.pass('timings are ordered and within the audio; word confidences are 0..1')
}

async function create<S extends TSchema>(
  t: Test,
  definition: EngineDefinition<S>,
  context: Parameters<EngineDefinition<S>['create']>[0],
): Promise<EngineInstance> {
  const instance = await definition.create(context)
  t.teardown(() => instance.close())
  return instance
}
