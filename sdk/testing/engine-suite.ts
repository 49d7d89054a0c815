/**
 * The conformance suite every speech engine runs (built-in ones and test fakes alike). It checks that the
 * definition is well formed and that an instance loads idempotently, transcribes real samples and empty audio
 * into well-formed, structured-cloneable results and closes twice; and it derives the rest from what the
 * engine declares in `capabilities`: words and segments where it promises them (and none where it does not),
 * custom words exercised where it takes them (never given where it does not, as the kernel does), each
 * declared language accepted, a piece as long as `maxAudioSeconds` transcribed, and, where it declares
 * `streaming`, the samples fed to a stream in chunks as the kernel feeds live audio.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Kind, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type {
  EngineCapabilities,
  EngineContext,
  EngineCustomWord,
  EngineDefinition,
  EngineInstance,
  EngineStream,
  EngineTranscribeRequest,
  EngineTranscribeResult,
  PluginLogger,
} from '../../kernel/contracts/engine.ts'
import { attempt, type ConformanceTest as Test } from './conformance-test.ts'
import { capabilityProblems, partialProblems, resultProblems } from './engine-checks.ts'

export interface EngineContractCase<S extends TSchema> {
  definition: EngineDefinition<S>
  /** Options as a user would write them in config (defaults are applied here, as the kernel does). */
  options: Record<string, unknown>
  /** 16 kHz mono speech, no longer than the engine's maxAudioSeconds. */
  samples: Float32Array
  /** What the transcript of `samples` must match, when the engine is deterministic enough to say. */
  expectText?: RegExp | string
  /**
   * The custom words given to an engine that declares `customWords` (default: {@link SAMPLE_CUSTOM_WORDS}).
   * Never given to one that does not.
   */
  customWords?: EngineCustomWord[]
  /** What the transcript of `samples` must match with `customWords` given, when the engine can say. */
  expectCustomText?: RegExp | string
  /**
   * Why a piece as long as `maxAudioSeconds` is not sent (say, an engine that needs more than a few seconds
   * for it here); the check is then reported as skipped with this reason.
   */
  skipLongestPiece?: string
}

/**
 * Custom words of every kind the dictionary holds: a plain word, one with a spoken alias, a phrase, letters
 * outside ASCII, the default weight (null) and the extremes of the range.
 */
export const SAMPLE_CUSTOM_WORDS: readonly EngineCustomWord[] = [
  { text: 'dictum', weight: null, aliases: [] },
  { text: 'Kubernetes', weight: 50, aliases: ['cube er net ease'] },
  { text: 'New York', weight: 100, aliases: ['new york city'] },
  { text: 'Zürich', weight: 0.5, aliases: ['zurich'] },
]

const SAMPLE_RATE = 16000
/** Live audio reaches a stream in chunks of about this much (the realtime API's clients send 20-100 ms). */
const STREAM_CHUNK_SAMPLES = 1600
/**
 * The longest piece the kernel hands an engine that declares no limit (transcription/: the window used
 * when `maxAudioSeconds` is null and config `vad.maxSegmentSeconds` is unset).
 */
const UNLIMITED_WINDOW_SECONDS = 120
const silentLogger: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} }

export async function runEngineContract<S extends TSchema>(t: Test, c: EngineContractCase<S>): Promise<void> {
  // One parent test: awaits between the checks must not let tap end the caller's test early.
  await t.test(`${c.definition.id}: engine contract`, (t: Test) => contract(t, c))
}

async function contract<S extends TSchema>(t: Test, c: EngineContractCase<S>): Promise<void> {
  const { definition, samples } = c
  const id = definition.id
  const options = resolveOptions(t, definition.optionsSchema, c.options) as Static<S>
  const dataDir = mkdtempSync(path.join(tmpdir(), `dictum-contract-${id}-`))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const context = { options, dataDir, modelsDir: path.join(dataDir, 'models'), logger: silentLogger }
  const capabilities = definition.capabilities(options)
  const seconds = samples.length / SAMPLE_RATE
  const check = (t: Test, result: EngineTranscribeResult, audioSeconds: number, what: string) =>
    checkResult(t, result, audioSeconds, capabilities, what)

  await t.test(`${id}: definition`, async (t: Test) => {
    t.match(id, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'id is lower-case letters, digits and dashes')
    const name =
      typeof definition.displayName === 'function' ? definition.displayName(options) : definition.displayName
    t.ok(typeof name === 'string' && name.trim(), 'has a display name')
    if (definition.description !== undefined) t.type(definition.description, 'string')
    t.ok((definition.optionsSchema as Record<symbol, unknown>)[Kind], 'optionsSchema is a TypeBox schema')
    t.ok([undefined, 'process', 'none'].includes(definition.isolation), 'isolation is process, none or unset')
    t.same(capabilityProblems(capabilities), [], 'the capabilities are well formed')
    const max = capabilities.maxAudioSeconds
    if (typeof max === 'number') t.ok(seconds <= max, 'the test samples fit maxAudioSeconds')
    if (definition.probe) {
      const probe = await definition.probe(context)
      t.type(probe.available, 'boolean', 'probe says whether it is available')
      if (!probe.available) t.ok(probe.reason.trim(), 'an unavailable probe gives a reason')
    }
  })

  const probe = (await definition.probe?.(context)) ?? { available: true }
  if (!probe.available) {
    await t.test(`${id}: instance checks`, { skip: `engine unavailable: ${probe.reason}` }, () => {})
    return
  }

  // One instance for the checks below, as the kernel keeps one for every request.
  const instance = await create(t, definition, context)
  let plainText: string | undefined

  await t.test(`${id}: load is idempotent, transcribe returns a well-formed result`, async (t: Test) => {
    await Promise.all([instance.load(), instance.load()])
    await instance.load()
    const result = await instance.transcribe({ samples, customWords: [] })
    check(t, result, seconds, 'the transcript')
    if (c.expectText !== undefined) t.match(result.text, c.expectText, 'the transcript is the expected one')
    const again = await instance.transcribe({ samples, customWords: [] })
    t.equal(again.text, result.text, 'a loaded instance gives the same text twice')
    plainText = result.text
  })

  await t.test(`${id}: empty audio`, async (t: Test) => {
    await instance.load()
    const result = await instance.transcribe({ samples: new Float32Array(0), customWords: [] })
    check(t, result, 0, 'the transcript of no audio')
    t.equal(result.text.trim(), '', 'no audio, no words')
  })

  await subtest(
    t,
    `${id}: custom words (capabilities.customWords)`,
    capabilities.customWords ? null : 'capabilities.customWords is false: the kernel never passes them',
    async (t: Test) => {
      await instance.load()
      const plain = plainText ?? (await instance.transcribe({ samples, customWords: [] })).text
      const words = structuredClone([...(c.customWords ?? SAMPLE_CUSTOM_WORDS)])
      const biased = await attempt(t, 'transcribe with custom words', () =>
        instance.transcribe({ samples, customWords: words }),
      )
      if (!biased) return
      check(t, biased, seconds, 'the transcript with custom words')
      if (c.expectCustomText !== undefined)
        t.match(biased.text, c.expectCustomText, 'the custom words show in the transcript')
      const after = await instance.transcribe({ samples, customWords: [] })
      t.equal(after.text, plain, 'custom words stop counting once the dictionary has none')
    },
  )

  await t.test(`${id}: declared languages (capabilities.languages)`, async (t: Test) => {
    await instance.load()
    for (const language of languagesToTry(capabilities.languages)) {
      const result = await attempt(t, `transcribe with language "${language}"`, () =>
        instance.transcribe({ samples, customWords: [], language }),
      )
      if (result) check(t, result, seconds, `the transcript with language "${language}"`)
    }
  })

  const longest = capabilities.maxAudioSeconds ?? UNLIMITED_WINDOW_SECONDS
  await subtest(
    t,
    `${id}: a piece of ${longest} s (capabilities.maxAudioSeconds)`,
    c.skipLongestPiece ?? null,
    async (t: Test) => {
      await instance.load()
      // As the kernel sends the second piece of a long recording: timings stay relative to the piece.
      const request: EngineTranscribeRequest = {
        samples: tile(samples, Math.floor(longest * SAMPLE_RATE)),
        customWords: [],
        offsetSeconds: longest,
      }
      const result = await attempt(t, `transcribe ${longest} s`, () => instance.transcribe(request))
      if (result) check(t, result, request.samples.length / SAMPLE_RATE, `the transcript of ${longest} s`)
    },
  )

  await subtest(
    t,
    `${id}: streaming (capabilities.streaming)`,
    capabilities.streaming === true
      ? null
      : 'capabilities.streaming is not true: the kernel cuts live audio at pauses and transcribes it whole',
    async (t: Test) => {
      await instance.load()
      const openStream = instance.openStream?.bind(instance)
      if (!openStream) {
        t.fail('capabilities.streaming is true but the instance has no openStream')
        return
      }
      const stream = await attempt(t, 'openStream', async () => openStream({ customWords: [] }))
      if (!stream) return
      const partials = await feed(t, stream, samples)
      if (!partials) return
      const problems = partialProblems(partials)
      for (const problem of problems) t.fail(`the partials: ${problem}`)
      if (problems.length === 0) t.pass(`${partials.length} partials, each with the whole hypothesis as text`)
      const result = await attempt(t, 'finish', () => stream.finish())
      if (!result) return
      check(t, result, seconds, 'the final result of the stream')
      if (c.expectText !== undefined)
        t.match(result.text, c.expectText, 'the final text is the expected transcript')
      t.doesNotThrow(() => {
        stream.cancel()
        stream.cancel()
      }, 'cancel after finish, twice, does not throw')

      const dropped = await attempt(t, 'openStream for a cancelled utterance', async () =>
        openStream({ customWords: [] }),
      )
      if (!dropped) return
      await attempt(t, 'accept', async () => dropped.accept(samples.slice(0, STREAM_CHUNK_SAMPLES)))
      t.doesNotThrow(() => {
        dropped.cancel()
        dropped.cancel()
      }, 'cancel mid-utterance, twice, does not throw')
    },
  )

  await t.test(`${id}: close twice`, async (t: Test) => {
    const unused = await definition.create(context)
    await unused.close()
    await unused.close()
    const instance = await definition.create(context)
    await instance.load()
    await instance.close()
    await instance.close()
    t.pass('closing twice, loaded or not, does not throw')
  })
}

function resolveOptions(t: Test, schema: TSchema, raw: Record<string, unknown>): unknown {
  const value = Value.Default(schema, structuredClone(raw))
  const problems = [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`)
  t.same(problems, [], 'the options schema accepts the options')
  return value
}

/** One assertion per problem, or one pass naming what was checked. */
function checkResult(
  t: Test,
  result: EngineTranscribeResult,
  seconds: number,
  capabilities: EngineCapabilities,
  what: string,
): void {
  const problems = resultProblems(result, seconds, capabilities)
  for (const problem of problems) t.fail(`${what}: ${problem}`)
  if (problems.length === 0)
    t.pass(`${what} is well formed, with the words and segments the capabilities promise`)
}

/**
 * Language hints the kernel lets through to the engine (transcription/, `checkLanguage`): a few declared
 * codes, and a regional form of the first (the kernel compares base languages and passes the hint as the
 * client wrote it; region 001, "world", exists for every language). With `*` any hint passes: two samples.
 * An undeclared language never reaches the engine (the kernel answers 400), so none is sent.
 */
export function languagesToTry(languages: readonly string[]): string[] {
  const declared = languages.includes('*') ? ['en', 'de'] : languages.slice(0, 3)
  const first = declared[0]
  return first !== undefined && !first.includes('-') ? [...declared, `${first}-001`] : declared
}

/**
 * Feeds `samples` to the stream in chunks, each awaited, as the kernel does: the chunks share one array,
 * silenced once each call returns (a chunk is valid only during the call, so an engine that keeps it
 * would hear silence). Returns the non-null partials, or undefined after a failure.
 */
async function feed(t: Test, stream: EngineStream, samples: Float32Array): Promise<unknown[] | undefined> {
  const chunk = new Float32Array(STREAM_CHUNK_SAMPLES)
  const partials: unknown[] = []
  for (let at = 0; at < samples.length; at += STREAM_CHUNK_SAMPLES) {
    const piece = samples.subarray(at, at + STREAM_CHUNK_SAMPLES)
    chunk.set(piece)
    const view = chunk.subarray(0, piece.length)
    let partial: unknown
    try {
      partial = await stream.accept(view)
    } catch (err) {
      t.fail(`accept of the chunk at ${at / SAMPLE_RATE} s threw: ${(err as Error)?.message ?? err}`)
      return undefined
    }
    chunk.fill(0)
    if (partial !== null) partials.push(partial)
  }
  return partials
}

/** `samples` repeated to `length` (silence when there are none). */
function tile(samples: Float32Array, length: number): Float32Array {
  const out = new Float32Array(length)
  if (samples.length === 0) return out
  for (let at = 0; at < length; at += samples.length)
    out.set(samples.subarray(0, Math.min(samples.length, length - at)), at)
  return out
}

/** A subtest, or a skipped one saying why it does not apply. */
async function subtest(t: Test, name: string, skip: string | null, fn: (t: Test) => Promise<void>) {
  if (skip === null) await t.test(name, fn)
  else await t.test(name, { skip }, () => {})
}

async function create<S extends TSchema>(
  t: Test,
  definition: EngineDefinition<S>,
  context: EngineContext<Static<S>>,
): Promise<EngineInstance> {
  const instance = await definition.create(context)
  t.teardown(() => instance.close())
  return instance
}
