/**
 * Real transcription of every reference clip through the HTTP API (the real pocketsphinx engine, isolated),
 * with the word error rate computed here and compared with `pocketsphinx_continuous` on the same clips.
 */
import { existsSync, readFileSync } from 'node:fs'
import t from 'tap'
import { commandLineTranscript, referenceClips, SHORT_CLIPS } from '../../engines/pocketsphinx/clips.ts'
import { build } from '../../helpers/build.ts'
import { listen, rawRequest } from '../../helpers/http.ts'
import { corpusWordErrorRate } from '../../helpers/wer.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')

t.test(
  'the short clips of refs.tsv through POST /v1/transcribe, WER no worse than the command line',
  { skip: installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)' },
  async (t) => {
    const app = await build(t, { speech: { engine: 'pocketsphinx' } })
    const port = await listen(t, app)
    // The whole corpus against the command line is test/engines/pocketsphinx/transcribe.test.ts's (the engine
    // as the service runs it); through HTTP, the six clips of 3.3 s or less (14 of its 47 s).
    const clips = referenceClips().filter((clip) => SHORT_CLIPS.includes(clip.file))
    t.equal(clips.length, 6, 'the six short reference clips')
    const ours: { reference: string; hypothesis: string }[] = []
    const cli: { reference: string; hypothesis: string }[] = []
    for (const clip of clips) {
      const res = await rawRequest({
        port,
        method: 'POST',
        path: '/v1/transcribe',
        headers: { 'content-type': 'audio/wav', 'x-filename': clip.file },
        body: readFileSync(clip.path),
      })
      t.equal(res.status, 200, clip.file)
      t.equal(res.json.provider, 'PocketSphinx (en-US)')
      t.ok(res.json.confidence >= 0 && res.json.confidence <= 1, 'confidence in 0..1')
      ours.push({ reference: clip.reference, hypothesis: res.json.text })
      cli.push({ reference: clip.reference, hypothesis: await commandLineTranscript(clip.path) })
    }
    const dictumWer = corpusWordErrorRate(ours)
    const cliWer = corpusWordErrorRate(cli)
    t.comment(
      `WER through HTTP: dictum ${dictumWer.toFixed(3)}, pocketsphinx_continuous ${cliWer.toFixed(3)}`,
    )
    t.ok(dictumWer <= cliWer, `dictum ${dictumWer.toFixed(3)} <= command line ${cliWer.toFixed(3)}`)
    t.ok(dictumWer < 0.5, 'and it is real recognition, not noise')
    const engines = (await rawRequest({ port, path: '/v1/engines' })).json
    const ps = engines.items.find((e: { id: string }) => e.id === 'pocketsphinx')
    t.match(ps, { status: 'ready', active: true, capabilities: { customWords: true } })
  },
)
