import t from 'tap'
import { corpusWordErrorRate, wordErrorRate } from '../../helpers/wer.ts'
import { commandLineTranscript, readClip, referenceClips, SHORT_CLIPS } from './clips.ts'
import { options, skip } from './engine-context.ts'
import { defaultCorpusPass, startRunner } from './runner.ts'

t.test('the WER helper', async (t) => {
  t.equal(
    wordErrorRate('Go forward, ten meters.', 'go forward ten meters'),
    0,
    'case and punctuation ignored',
  )
  t.equal(wordErrorRate('a b c d', 'a x c'), 0.5, 'one substitution and one deletion over four words')
  t.equal(wordErrorRate('a b', 'a b c d'), 1, 'insertions count')
})

t.test(
  'every shared clip through the engine runner, compared with pocketsphinx_continuous',
  { skip },
  async (t) => {
    const results = await defaultCorpusPass(t)
    const ours: { reference: string; hypothesis: string }[] = []
    const first = new Map<string, { text: string; confidence: number | null }>()
    const theirs: { reference: string; hypothesis: string }[] = []
    t.equal(results.length, referenceClips().length, 'every clip of refs.tsv')
    for (const { clip, samples, result } of results) {
      const cli = await commandLineTranscript(clip.path)
      ours.push({ reference: clip.reference, hypothesis: result.text })
      first.set(clip.file, { text: result.text, confidence: result.confidence })
      theirs.push({ reference: clip.reference, hypothesis: cli })
      t.comment(`${clip.file}: dictum "${result.text}" | cli "${cli}"`)
      t.ok(result.text.length > 0, `${clip.file}: recognised something`)
      t.ok(
        result.confidence !== null && result.confidence > 0 && result.confidence <= 1,
        `${clip.file}: confidence`,
      )
      t.equal(
        result.words?.map((w) => w.word).join(' '),
        result.text,
        `${clip.file}: the words make the text`,
      )
      const seconds = samples.length / 16000
      t.ok(
        result.words?.every(
          (w, i, all) =>
            w.start < w.end && w.end <= seconds + 0.05 && (i === 0 || all[i - 1]!.end <= w.start),
        ),
        `${clip.file}: word timings are in order and inside the clip`,
      )
    }
    const dictumWer = corpusWordErrorRate(ours)
    const cliWer = corpusWordErrorRate(theirs)
    t.comment(`WER: dictum ${dictumWer.toFixed(3)}, pocketsphinx_continuous ${cliWer.toFixed(3)}`)
    t.ok(
      dictumWer <= cliWer,
      `dictum's WER (${dictumWer.toFixed(3)}) is no worse than the command line's (${cliWer.toFixed(3)})`,
    )
    t.ok(
      wordErrorRate('go forward ten meters', ours[3]?.hypothesis ?? '') === 0,
      'the short command is exact',
    )
    // Nothing is carried from one request to the next: in a runner of its own, in another order, each clip
    // gives the text and confidence of the pass above, which the runner made after other clips
    // (pocketsphinx's live-mode adaptation would change some). The six clips of 3.3 s or less, in reverse
    // order: 14 of the corpus's 47 s again.
    const runner = startRunner(t, options)
    const again = referenceClips()
      .filter((clip) => SHORT_CLIPS.includes(clip.file))
      .reverse()
    t.equal(again.length, SHORT_CLIPS.length, 'the short clips are in refs.tsv')
    for (const clip of again) {
      const again = await runner.transcribe({ samples: await readClip(clip.path), customWords: [] })
      t.same(
        { text: again.text, confidence: again.confidence },
        first.get(clip.file),
        `${clip.file}: same again`,
      )
    }
  },
)

t.test(
  "pocketsphinx's own settings (second pass, every frame scored, the full search, live adaptation) are options away",
  { skip },
  async (t) => {
    const runner = startRunner(t, {
      ...options,
      fwdflat: true,
      frameDownsample: 1,
      maxHmmsPerFrame: 30000,
      adaptAcrossRequests: true,
    })
    const clip = referenceClips().find((c) => c.file === 'goforward.wav')!
    const result = await runner.transcribe({ samples: await readClip(clip.path), customWords: [] })
    t.equal(wordErrorRate(clip.reference, result.text), 0, `"${result.text}"`)
    t.ok(result.confidence !== null && result.confidence > 0)
  },
)
