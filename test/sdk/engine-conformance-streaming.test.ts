/**
 * The engine conformance suite checks the `streaming` capability where an engine declares it: the suite's
 * samples fed to a stream in chunks (one array reused, as the kernel's chunks are valid only during the
 * call), partials with string texts, a final result in the usual shape, cancel safe twice. Run against the
 * fixture streaming engine and broken variants of it.
 */
import t from 'tap'
import type { EngineDefinition, EngineInstance } from '../../kernel/contracts/engine.ts'
import { runEngineContract } from '../../sdk/testing/engine-suite.ts'
import { expectedText, streamingEngine } from '../fixtures/plugins/streaming-engine.ts'
import { findings } from '../helpers/conformance-recorder.ts'

const samples = Float32Array.from({ length: 2 * 16000 }, (_, i) => 0.3 * Math.sin(i / 7))
const fixture = streamingEngine as unknown as EngineDefinition
const expectText = expectedText(samples, 100)

/** The fixture with its instance changed by `alter` (and `streaming` declared whatever the options say). */
function variant(alter: (instance: EngineInstance) => EngineInstance): EngineDefinition {
  return {
    ...fixture,
    capabilities: (options) => ({ ...fixture.capabilities(options), streaming: true }),
    create: async (context) => alter(await fixture.create(context)),
  }
}

const run = (definition: EngineDefinition, options: Record<string, unknown> = {}) =>
  findings((t) => runEngineContract(t, { definition, options, samples, expectText }))

t.test('a faithful streaming engine passes, its stream exercised', async (t) => {
  t.match(expectText, /^alpha bravo charlie .+/, 'the fixture hears words in the samples')
  const found = await run(fixture)
  t.same(found.failures, [], 'no check failed')
  t.same(found.skipped, [], 'the streaming check ran')
})

t.test('an engine without the capability has the streaming check skipped', async (t) => {
  const found = await run(fixture, { streaming: false })
  t.same(found.failures, [])
  t.match(found.skipped, [/streaming \(capabilities\.streaming\): capabilities\.streaming is not true/])
})

const broken: Array<[string, EngineDefinition, RegExp]> = [
  [
    'declares streaming but has no openStream',
    variant(({ openStream: _, ...instance }) => instance),
    /capabilities\.streaming is true but the instance has no openStream/,
  ],
  [
    'returns partials without a string text',
    variant((instance) => ({
      ...instance,
      openStream: async (options) => {
        const stream = await instance.openStream!(options)
        return { ...stream, accept: async () => ({ text: 42 }) as never, finish: () => stream.finish() }
      },
    })),
    /the partials: partial 0 is not \{ text: string \} \(\{"text":42\}\)/,
  ],
  [
    'keeps the chunks it was given after accept returned',
    variant((instance) => ({
      ...instance,
      openStream: async (options) => {
        const stream = await instance.openStream!(options)
        const kept: Float32Array[] = []
        return {
          accept: async (chunk) => {
            kept.push(chunk)
            return null
          },
          finish: async () => {
            for (const chunk of kept) await stream.accept(chunk)
            return stream.finish()
          },
          cancel: () => stream.cancel(),
        }
      },
    })),
    /the final text is the expected transcript/,
  ],
  [
    'throws on a second cancel',
    variant((instance) => ({
      ...instance,
      openStream: async (options) => {
        const stream = await instance.openStream!(options)
        let cancelled = false
        return {
          accept: (chunk) => stream.accept(chunk),
          finish: () => stream.finish(),
          cancel: () => {
            if (cancelled) throw new Error('already cancelled')
            cancelled = true
          },
        }
      },
    })),
    /cancel after finish, twice, does not throw/,
  ],
]

for (const [name, definition, expected] of broken) {
  t.test(`fails an engine that ${name}`, async (t) => {
    const { failures } = await run(definition)
    t.ok(
      failures.some((failure) => expected.test(failure)),
      `a failure says so: ${failures.join(' | ') || 'none'}`,
    )
  })
}
