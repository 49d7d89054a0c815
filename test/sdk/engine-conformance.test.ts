/**
 * The engine conformance suite derives its checks from the capabilities an engine declares: run against a
 * fixture engine whose capabilities and faults the test chooses (test/fixtures/engines/declared-engine.ts),
 * it passes the faithful engine and fails each broken promise with a message that names it, and nothing
 * else. It never gives custom words to an engine that does not declare them, nor an undeclared language.
 */
import t from 'tap'
import { runEngineContract } from '../../sdk/testing/engine-suite.ts'
import declared from '../fixtures/engines/declared-engine.ts'
import { findings } from '../helpers/conformance-recorder.ts'

const samples = Float32Array.from({ length: 2 * 16000 }, (_, i) => 0.3 * Math.sin(i / 7))
const run = (options: Record<string, unknown>, extra: { expectCustomText?: RegExp } = {}) =>
  findings((t) => runEngineContract(t, { definition: declared, options, samples, ...extra }))

t.test('a faithful engine passes, every capability exercised', async (t) => {
  const found = await run({}, { expectCustomText: /^alpha bravo charlie dictum$/ })
  t.same(found.failures, [], 'no check failed')
  // The declared fixture does not stream: engine-conformance-streaming.test.ts runs that check.
  t.match(found.skipped, [/streaming \(capabilities\.streaming\): capabilities\.streaming is not true/])
  t.equal(found.skipped.length, 1, 'no other check skipped')
  t.ok(found.passes > 10, `checks passed (${found.passes})`)
})

t.test('an engine declaring nothing optional passes, and is never given custom words', async (t) => {
  const found = await run({
    wordTimestamps: false,
    segmentTimestamps: false,
    customWords: false,
    languages: ['*'],
    maxAudioSeconds: null,
    fault: 'throws-on-custom-words',
  })
  t.same(found.failures, [], 'no check failed, although custom words would make it throw')
  t.match(found.skipped, [
    /custom words .*: capabilities\.customWords is false: the kernel never passes them/,
  ])
})

t.test('an engine refusing undeclared languages passes: the kernel never sends one', async (t) => {
  const found = await run({ languages: ['en', 'fr'], fault: 'refuses-undeclared-language' })
  t.same(found.failures, [])
})

const broken: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    'declares word timestamps but returns no words',
    { fault: 'no-words' },
    /capabilities\.wordTimestamps is true but "alpha bravo charlie (delta|dictum)" comes with no words/,
  ],
  [
    'declares segment timestamps but returns no segments',
    { fault: 'no-segments' },
    /capabilities\.segmentTimestamps is true but .* comes with no segments/,
  ],
  [
    'returns words it does not declare',
    { wordTimestamps: false, fault: 'undeclared-words' },
    /the result has 4 words but capabilities\.wordTimestamps is false \(declare it\)/,
  ],
  [
    'returns words out of order',
    { fault: 'words-unordered' },
    /(words|segments)\[1\] "bravo" starts before the one before it \(0 < 0\.5\)/,
  ],
  [
    'returns a word past the end of the audio',
    { fault: 'words-past-audio' },
    /(words|segments)\[3\] "(delta|dictum)" ends after the audio \(1\.5\.\.(3 of 2|11 of 10) s\)/,
  ],
  [
    'returns words that do not spell the text',
    { fault: 'words-misspelt' },
    /the (words|segments) do not spell the text: "omega bravo charlie (delta|dictum)" vs "alpha bravo charlie (delta|dictum)"/,
  ],
  [
    'declares custom words but throws when given them',
    { fault: 'throws-on-custom-words' },
    /custom words \(capabilities\.customWords\): transcribe with custom words threw: custom words are not supported/,
  ],
  [
    'keeps custom words after the dictionary is emptied',
    { fault: 'custom-words-stick' },
    /custom words stop counting once the dictionary has none \(found "alpha bravo charlie dictum", wanted "alpha bravo charlie delta"\)/,
  ],
  [
    'refuses the regional form of a declared language',
    { fault: 'exact-language-only' },
    /transcribe with language "en-001" threw: unknown language en-001/,
  ],
  [
    'refuses a piece as long as its maxAudioSeconds',
    { fault: 'refuses-long-audio' },
    /a piece of 10 s \(capabilities\.maxAudioSeconds\): transcribe 10 s threw: audio too long/,
  ],
]

for (const [name, options, expected] of broken) {
  t.test(`fails an engine that ${name}`, async (t) => {
    const { failures } = await run(options)
    t.ok(
      failures.some((failure) => expected.test(failure)),
      `a failure says so: ${failures.join(' | ') || 'none'}`,
    )
    t.same(
      failures.filter((failure) => !expected.test(failure)),
      [],
      'no other check failed',
    )
  })
}

t.test('fails custom words that do not show where the case expects them', async (t) => {
  const { failures } = await run({}, { expectCustomText: /delta$/ })
  t.match(failures, [/custom words .*: the custom words show in the transcript/])
  t.equal(failures.length, 1)
})

t.test('fails capabilities that are not well formed', async (t) => {
  const { failures } = await run({ languages: ['English'], maxAudioSeconds: 0 })
  t.ok(
    failures.some((f) =>
      /capabilities are well formed.*languages holds something else than codes or \*.*maxAudioSeconds is neither null nor positive/.test(
        f,
      ),
    ),
    failures.join(' | '),
  )
})
