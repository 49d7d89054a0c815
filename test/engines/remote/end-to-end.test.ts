/**
 * End to end, no mocks: dictum A selects the remote engine pointing at dictum B (real pocketsphinx, real HTTP on
 * 127.0.0.1). A returns what B returns directly; with B stopped A answers a clear 502 and keeps serving its
 * other endpoints; when B comes back on the same port, A recovers. A time limit shorter than B's work is a 504.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { build, tempDir } from '../../helpers/build.ts'
import { rawRequest } from '../../helpers/http.ts'
import { referenceClips } from '../pocketsphinx/clips.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip = installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)'
// Short clips of four speakers (each is decoded twice: B directly and through A).
const CLIPS = [
  'goforward.wav',
  'librispeech-1089-134686-0001.wav',
  'librivox-austen-0880.wav',
  'cards-002.wav',
]

/** Dictum B: pocketsphinx, listening on `port` (0: any), on a data dir that survives its restarts. */
async function startB(t: Test, dataDir: string, port = 0) {
  const app = await build(t, { speech: { engine: 'pocketsphinx' }, dataDir })
  await app.listen({ host: '127.0.0.1', port })
  return { app, port: (app.server.address() as { port: number }).port }
}

async function startA(t: Test, portB: number, remote: Record<string, unknown> = {}) {
  const app = await build(t, {
    speech: {
      engine: 'remote',
      engines: {
        remote: { baseUrl: `http://127.0.0.1:${portB}/v1`, retries: 1, retryDelayMs: 20, ...remote },
      },
    },
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, port: (app.server.address() as { port: number }).port }
}

function transcribe(port: number, file: string) {
  return rawRequest({
    port,
    method: 'POST',
    path: '/v1/transcribe',
    headers: { 'content-type': 'audio/wav', 'x-filename': path.basename(file) },
    body: readFileSync(file),
  })
}

const clipPath = (name: string) => referenceClips().find((c) => c.file === name)!.path

t.test(
  'dictum → dictum: same text as B directly, 502 while B is down, recovery on the same port',
  { skip },
  async (t) => {
    const dataB = tempDir(t)
    let b = await startB(t, dataB)
    const a = await startA(t, b.port)
    for (const clip of CLIPS) {
      const direct = await transcribe(b.port, clipPath(clip))
      const viaA = await transcribe(a.port, clipPath(clip))
      t.equal(direct.status, 200, `${clip}: B directly`)
      t.equal(viaA.status, 200, `${clip}: through A`)
      t.equal(viaA.json.text, direct.json.text, `${clip}: same text "${direct.json.text}"`)
      t.equal(viaA.json.sampleCount, direct.json.sampleCount, `${clip}: same samples`)
      // pocketsphinx decodes each request on its own, so B's score arrives intact through avg_logprob
      // (not the kernel's "not measured" 1).
      const { confidence } = viaA.json
      t.ok(
        confidence > 0 && confidence < 1 && Math.abs(confidence - direct.json.confidence) < 0.001,
        `${clip}: confidence ${confidence} from B's ${direct.json.confidence}`,
      )
      t.equal(viaA.json.provider, `Remote: whisper-1 at 127.0.0.1:${b.port}`)
    }

    const portB = b.port
    await b.app.close()
    const down = await transcribe(a.port, clipPath('goforward.wav'))
    t.equal(down.status, 502, 'B stopped: 502 from A')
    t.same(down.json, {
      error: `Remote transcription server failed: 127.0.0.1:${portB} is unreachable (connection refused): is it running?`,
      code: 'REMOTE_ENGINE_FAILED',
    })
    t.equal((await rawRequest({ port: a.port, path: '/v1/health' })).status, 200, 'A keeps serving')
    t.equal((await rawRequest({ port: a.port, path: '/v1/dictionary/replacements' })).status, 200)
    const engines = (await rawRequest({ port: a.port, path: '/v1/engines' })).json
    t.match(
      engines.items.find((e: { id: string }) => e.id === 'remote'),
      { active: true, status: 'ready' },
    )

    b = await startB(t, dataB, portB)
    t.equal(b.port, portB, 'B is back on the same port')
    const back = await transcribe(a.port, clipPath('goforward.wav'))
    t.equal(back.status, 200, 'A recovers without a restart')
    t.equal(back.json.text, 'go forward ten meters')
  },
)

t.test(
  'A through the OpenAI route of B: a time limit shorter than the work is a 504',
  { skip },
  async (t) => {
    const b = await startB(t, tempDir(t))
    const a = await startA(t, b.port, { timeoutMs: 100, retries: 0 })
    const res = await transcribe(a.port, clipPath('jfk.wav'))
    t.equal(res.status, 504)
    t.same(res.json, {
      error: `Remote transcription server timed out: 127.0.0.1:${b.port} sent no answer within 100 ms.`,
      code: 'REMOTE_ENGINE_TIMEOUT',
    })
    t.equal((await rawRequest({ port: a.port, path: '/v1/health' })).status, 200, 'A keeps serving')
  },
)
