/**
 * pocketsphinx live utterances (the streaming capability), on the repo's real speech fed in 40 ms chunks as
 * a live client sends them: partials come while the audio goes on and mostly extend each other, the final
 * result is what transcribe() gives for the same audio, custom words reach the stream, streams open at once
 * do not disturb each other, and a finished or cancelled stream gives its decoder back.
 */
import path from 'node:path'
import t, { type Test } from 'tap'
import pocketsphinx from '../../../engines/pocketsphinx/index.ts'
import { HYPOTHESIS_EVERY_SAMPLES, type PocketsphinxEngine } from '../../../engines/pocketsphinx/instance.ts'
import type { EngineCustomWord, EngineStream } from '../../../kernel/contracts/engine.ts'
import { audioFixturesDir, readClip } from './clips.ts'
import { context, options, skip } from './engine-context.ts'

const CHUNK = 640 // 40 ms at 16 kHz
const clip = (file: string) => path.join(audioFixturesDir, file)

async function newEngine(t: Test): Promise<PocketsphinxEngine> {
  const engine = (await pocketsphinx.create(context)) as PocketsphinxEngine
  t.teardown(() => engine.close())
  await engine.load()
  return engine
}

/** Feeds the samples in 40 ms chunks; the partials returned, with the second of audio each came after. */
async function feed(stream: EngineStream, samples: Float32Array) {
  const partials: { at: number; text: string }[] = []
  for (let i = 0; i < samples.length; i += CHUNK) {
    const partial = await stream.accept(samples.slice(i, i + CHUNK))
    if (partial) partials.push({ at: Math.min(i + CHUNK, samples.length) / 16000, text: partial.text })
  }
  return partials
}

const words = (text: string) => text.split(' ').filter(Boolean)

t.test('the capability is announced', async (t) => {
  t.equal(pocketsphinx.capabilities(options).streaming, true)
})

t.test('real speech in 40 ms chunks: growing partials, the final is transcribe()', { skip }, async (t) => {
  const engine = await newEngine(t)
  let partialCount = 0
  let earlierWordRevised = 0
  for (const file of [
    'goforward.wav',
    'librispeech-1089-134686-0001.wav',
    'librivox-austen-0880.wav',
    'cards-002.wav',
  ]) {
    const samples = await readClip(clip(file))
    const whole = await engine.transcribe({ samples, customWords: [] })
    const stream = await engine.openStream({ customWords: [] })
    const partials = await feed(stream, samples)
    const final = await stream.finish()
    t.same(
      { text: final.text, words: final.words, confidence: final.confidence },
      { text: whole.text, words: whole.words, confidence: whole.confidence },
      `${file}: the final result is transcribe()'s: "${final.text}"`,
    )
    const seconds = samples.length / 16000
    // Measured: a partial every ~0.1 s of speech, the first within 0.8 s; at least one per second here.
    t.ok(partials.length >= Math.floor(seconds), `${file}: ${partials.length} partials over ${seconds} s`)
    t.ok((partials[0]?.at ?? Infinity) < 1, `${file}: the first partial comes within the first second`)
    t.ok(
      partials.every((p, i) => i === 0 || p.text !== partials[i - 1]?.text),
      `${file}: a partial is returned only when the hypothesis changed`,
    )
    const first = partials[0]?.text ?? ''
    const last = partials.at(-1)?.text ?? ''
    t.ok(words(last).length > words(first).length, `${file}: the hypothesis grows ("${first}" → "${last}")`)
    for (const [i, p] of partials.entries()) {
      const before = words(partials[i - 1]?.text ?? '').slice(0, -1)
      const now = words(p.text)
      if (before.some((word, k) => now[k] !== word)) earlierWordRevised++
    }
    partialCount += partials.length
  }
  // Measured on these clips: ~20% of partials change a word before the previous partial's last one (most
  // changes are the word being spoken); the bound leaves room without letting partials turn into noise.
  t.comment(`${earlierWordRevised} of ${partialCount} partials revise an earlier word`)
  t.ok(earlierWordRevised / partialCount < 0.4, 'partials mostly extend the earlier ones')
})

t.test(
  "the final keeps the file search whatever the live pass's: maxHmmsPerFrame reaches both transcribe() and the final",
  { skip },
  async (t) => {
    // 30000 (the library's default) for the file search, while the live pass keeps its 5000: on jfk.wav the
    // live pass's search loses a word the file search finds, so a final taken from it would differ.
    const wide = { ...options, maxHmmsPerFrame: 30000 }
    const engine = (await pocketsphinx.create({ ...context, options: wide })) as PocketsphinxEngine
    t.teardown(() => engine.close())
    await engine.load()
    const samples = await readClip(clip('jfk.wav'))
    const whole = await engine.transcribe({ samples, customWords: [] })
    const stream = await engine.openStream({ customWords: [] })
    const partials = await feed(stream, samples)
    const final = await stream.finish()
    t.not(
      partials.at(-1)?.text,
      whole.text,
      `the live pass's last hypothesis differs: "${partials.at(-1)?.text}"`,
    )
    t.same(
      { text: final.text, words: final.words },
      { text: whole.text, words: whole.words },
      `the final is the file search's: "${final.text}"`,
    )
  },
)

t.test('custom words reach the stream: partials and final', { skip }, async (t) => {
  const engine = await newEngine(t)
  const samples = await readClip(clip('librispeech-1089-134686-0001.wav'))
  const customWords: EngineCustomWord[] = [{ text: 'Counselled', weight: null, aliases: ['counseled'] }]
  const plain = await engine.openStream({ customWords: [] })
  const plainPartials = await feed(plain, samples)
  const plainFinal = await plain.finish()
  t.notOk(
    plainPartials.some((p) => /counselled/i.test(p.text)) || /counselled/i.test(plainFinal.text),
    'without it pocketsphinx cannot say it',
  )

  const boosted = await engine.openStream({ customWords })
  const partials = await feed(boosted, samples)
  const final = await boosted.finish()
  t.match(final.text, /\bCounselled\b/, `final: ${final.text}`)
  t.equal(final.text, (await engine.transcribe({ samples, customWords })).text, 'as transcribe() with them')
  t.ok(
    partials.some((p) => /\bCounselled\b/.test(p.text)),
    `a partial has it, canonical: ${partials.at(-1)?.text}`,
  )

  // The same live decoder (given back, reused) without custom words again: the model's own words. (Its
  // partials need not repeat the first run's: the live pass's running mean has learned from the utterances
  // it decoded, as pocketsphinx's live mode does; the final never depends on it.)
  t.same(engine.liveDecoders, { busy: 0, idle: 1 }, 'one live decoder served all three')
  const again = await engine.openStream({ customWords: [] })
  const againPartials = await feed(again, samples)
  t.notOk(
    againPartials.some((p) => /counselled/i.test(p.text)),
    'without them again: no partial has it',
  )
  t.equal((await again.finish()).text, plainFinal.text, 'and the final is as before')
})

t.test('two streams interleaved decode independently', { skip }, async (t) => {
  const a = await readClip(clip('goforward.wav'))
  const b = await readClip(clip('librivox-austen-0880.wav'))
  // Each alone: both open on a fresh engine (fresh live decoders: the live pass adapts to what it decoded),
  // one fed whole, then the other.
  const fresh = await newEngine(t)
  const [soloA, soloB] = [
    await fresh.openStream({ customWords: [] }),
    await fresh.openStream({ customWords: [] }),
  ]
  const alone = async (stream: EngineStream, samples: Float32Array) => {
    const partials = await feed(stream, samples)
    return { partials: partials.map((p) => p.text), final: (await stream.finish()).text }
  }
  const aloneA = await alone(soloA, a)
  const aloneB = await alone(soloB, b)

  const engine = await newEngine(t)
  const streamA = await engine.openStream({ customWords: [] })
  const streamB = await engine.openStream({ customWords: [] })
  t.same(engine.liveDecoders, { busy: 2, idle: 0 }, 'a live decoder each')
  const together = { a: [] as string[], b: [] as string[] }
  for (let i = 0; i < Math.max(a.length, b.length); i += CHUNK) {
    if (i < a.length) {
      const p = await streamA.accept(a.slice(i, i + CHUNK))
      if (p) together.a.push(p.text)
    }
    if (i < b.length) {
      const p = await streamB.accept(b.slice(i, i + CHUNK))
      if (p) together.b.push(p.text)
    }
  }
  const [finalA, finalB] = await Promise.all([streamA.finish(), streamB.finish()])
  t.same(together.a, aloneA.partials, 'stream A: the partials it gives alone')
  t.same(together.b, aloneB.partials, 'stream B: the partials it gives alone')
  t.equal(finalA.text, aloneA.final)
  t.equal(finalB.text, aloneB.final)
  t.not(finalA.text, finalB.text)
  t.same(engine.liveDecoders, { busy: 0, idle: 2 }, 'both decoders given back')
})

t.test('cancel and finish give the decoder back; a stream ends once', { skip }, async (t) => {
  const engine = await newEngine(t)
  const samples = await readClip(clip('cards-001.wav'))
  const stream = await engine.openStream({ customWords: [] })
  await feed(stream, samples.subarray(0, 8000))
  t.same(engine.liveDecoders, { busy: 1, idle: 0 })
  stream.cancel()
  t.same(engine.liveDecoders, { busy: 0, idle: 1 }, 'cancel gives it back')
  stream.cancel()
  t.same(engine.liveDecoders, { busy: 0, idle: 1 }, 'cancel twice is harmless')
  t.throws(() => stream.accept(samples), /after the utterance ended/)
  await t.rejects(stream.finish(), /after the utterance ended/)

  // The cancelled utterance leaves nothing behind: the reused decoder's next stream starts afresh.
  const next = await engine.openStream({ customWords: [] })
  t.same(engine.liveDecoders, { busy: 1, idle: 0 }, 'the idle decoder is reused')
  await feed(next, samples)
  const final = await next.finish()
  t.equal(final.text, (await engine.transcribe({ samples, customWords: [] })).text)
  next.cancel()
  t.same(engine.liveDecoders, { busy: 0, idle: 1 }, 'cancel after finish is harmless')

  const empty = await engine.openStream({ customWords: [] })
  t.same(await empty.finish(), { text: '', confidence: null, words: [], segments: [], language: 'en' })

  // Live decoders are bounded (maxLiveDecoders, 4); close frees them all.
  const many = await Promise.all(Array.from({ length: 6 }, () => engine.openStream({ customWords: [] })))
  t.same(engine.liveDecoders, { busy: 4, idle: 0 }, 'six streams hold four live decoders')
  for (const s of many) s.cancel()
  t.same(engine.liveDecoders, { busy: 0, idle: 4 })
  const open = await engine.openStream({ customWords: [] })
  await engine.close()
  t.same(engine.liveDecoders, { busy: 0, idle: 0 }, 'close frees every live decoder')
  open.cancel()
})

t.test(
  'past maxLiveDecoders a stream waits for a decoder, catches up, and its final is still transcribe()',
  { skip },
  async (t) => {
    const engine = (await pocketsphinx.create({
      ...context,
      options: { ...options, maxLiveDecoders: 1 },
    })) as PocketsphinxEngine
    t.teardown(() => engine.close())
    await engine.load()
    const samples = await readClip(clip('goforward.wav'))
    const first = await engine.openStream({ customWords: [] })
    const second = await engine.openStream({ customWords: [] })
    t.same(engine.liveDecoders, { busy: 1, idle: 0 }, 'one live decoder for two streams')
    await feed(first, samples.subarray(0, 16000))
    const waiting = await feed(second, samples.subarray(0, 16000))
    t.same(waiting, [], 'no partials without a live decoder')
    // The first utterance is complete: its live pass stops and its decoder goes back before the finish.
    first.finishing?.()
    t.same(engine.liveDecoders, { busy: 0, idle: 1 }, 'finishing gives the decoder back')
    const caughtUp = await feed(second, samples.subarray(16000))
    t.ok(caughtUp.length > 0, `partials once a decoder is free (${caughtUp.length})`)
    t.same(engine.liveDecoders, { busy: 1, idle: 0 })
    const expected = (await engine.transcribe({ samples, customWords: [] })).text
    t.equal((await second.finish()).text, expected, 'the final is the file pass')
    t.equal(
      (await first.finish()).text,
      (await engine.transcribe({ samples: samples.subarray(0, 16000), customWords: [] })).text,
    )
    t.same(engine.liveDecoders, { busy: 0, idle: 1 })
  },
)

t.test(
  'live decoders are opened and set up once per dictionary version, not per utterance',
  { skip },
  async (t) => {
    const engine = await newEngine(t)
    const samples = await readClip(clip('librispeech-1089-134686-0001.wav'))
    const counselled: EngineCustomWord[] = [{ text: 'Counselled', weight: null, aliases: ['counseled'] }]
    // The work counted is per utterance, whatever its length: the repeated ones are its first 0.4 s.
    const utterance = async (customWords: EngineCustomWord[], audio = samples.subarray(0, 6400)) => {
      const stream = await engine.openStream({ customWords })
      const partials = await feed(stream, audio)
      return { partials, final: await stream.finish() }
    }
    // The first live decoder is opened for the custom words: it loads their dictionary at once.
    const first = await utterance(counselled, samples)
    t.ok(
      first.partials.some((p) => /\bCounselled\b/.test(p.text)),
      `the custom word in the partials: ${first.partials.at(-1)?.text}`,
    )
    t.equal(first.final.text, (await engine.transcribe({ samples, customWords: counselled })).text)
    t.same(
      engine.liveDecoderWork,
      { opened: 1, dictionaryLoads: 0, searchBuilds: 1 },
      'opened with their dictionary: no second dictionary load',
    )
    for (let i = 0; i < 5; i++) await utterance(counselled)
    t.same(engine.liveDecoderWork, { opened: 1, dictionaryLoads: 0, searchBuilds: 1 }, '5 more: no more work')

    // Two at once: a second decoder, set up once too.
    const [a, b] = [
      await engine.openStream({ customWords: counselled }),
      await engine.openStream({ customWords: counselled }),
    ]
    await Promise.all([a.finish(), b.finish()])
    for (let i = 0; i < 3; i++) await utterance(counselled)
    t.same(engine.liveDecoderWork, { opened: 2, dictionaryLoads: 0, searchBuilds: 2 })

    // A new dictionary version: a decoder switches once (its dictionary and search), then serves it as is.
    const more = [...counselled, { text: 'Kubernetes', weight: 50, aliases: ['cube er net ease'] }]
    for (let i = 0; i < 4; i++) await utterance(more)
    t.same(engine.liveDecoderWork, { opened: 2, dictionaryLoads: 1, searchBuilds: 3 })
    // Items of the old version still on the other decoder (set up for it): nothing to redo.
    for (let i = 0; i < 3; i++) await utterance(counselled)
    t.same(engine.liveDecoderWork, { opened: 2, dictionaryLoads: 1, searchBuilds: 3 })
  },
)

t.test(
  'the live pass asks for a hypothesis once per 100 ms of audio, however short the chunks',
  { skip },
  async (t) => {
    const engine = await newEngine(t)
    let partials = 0
    for (const file of ['librispeech-1089-134686-0001.wav', 'librivox-austen-0880.wav']) {
      const samples = await readClip(clip(file))
      const stream = await engine.openStream({ customWords: [] })
      // 32 ms chunks, as a server_vad session writes its windows.
      const at: number[] = []
      for (let i = 0; i < samples.length; i += 512) {
        const partial = await stream.accept(samples.slice(i, i + 512))
        if (partial) at.push(i + 512)
      }
      const gaps = at.slice(1).map((end, i) => end - (at[i] as number))
      t.ok(gaps.length > 5, `${file}: ${at.length} partials`)
      t.ok(
        gaps.every((gap) => gap >= HYPOTHESIS_EVERY_SAMPLES),
        `${file}: at least ${HYPOTHESIS_EVERY_SAMPLES} samples between partials (shortest ${Math.min(...gaps)})`,
      )
      t.equal((await stream.finish()).text, (await engine.transcribe({ samples, customWords: [] })).text)
      partials += at.length
    }
    t.ok(partials > 0)
  },
)

t.test(
  'fallen behind: the live pass stops and gives its decoder back, the final is unchanged',
  { skip },
  async (t) => {
    const engine = await newEngine(t)
    const samples = await readClip(clip('librivox-austen-0880.wav'))
    const stream = await engine.openStream({ customWords: [] })
    const before = await feed(stream, samples.subarray(0, 32000))
    t.ok(before.length > 0, 'partials before')
    t.same(engine.liveDecoders, { busy: 1, idle: 0 })
    stream.fallenBehind?.()
    t.same(engine.liveDecoders, { busy: 0, idle: 1 }, 'its decoder is free for the next utterance')
    t.same(await feed(stream, samples.subarray(32000)), [], 'no partials after')
    t.equal((await stream.finish()).text, (await engine.transcribe({ samples, customWords: [] })).text)
  },
)
