/**
 * The Vosk engine selected in a real app: a missing model, an incomplete folder (empty, or without
 * am/final.mdl) and a corrupt one give a clear 503 through /v1/transcribe and the OpenAI route, saying how to
 * fix it, never a crash; /v1/engines shows why the engine is unavailable.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import t, { type Test } from 'tap'
import { voskCatalogEntry } from '../../../engines/vosk/catalog.ts'
import { build, injectJson, tempDir } from '../../helpers/build.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'

const ID = 'vosk-model-small-en-us-0.15'
const FILES = voskCatalogEntry(ID)!.files
const audio = await readFile(path.join(audioFixturesDir, 'goforward.wav'))

async function voskApp(
  t: Test,
  options: Record<string, unknown> = {},
  prepare?: (modelsDir: string) => Promise<void>,
) {
  const dataDir = t.testdir()
  await prepare?.(path.join(dataDir, 'models'))
  return build(t, { dataDir, speech: { engine: 'vosk', engines: { vosk: options } } })
}

async function writeModel(dir: string, files: readonly string[], content = 'not a model\n') {
  for (const file of files) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await writeFile(path.join(dir, file), content)
  }
}

const transcribe = (app: Awaited<ReturnType<typeof build>>) =>
  app.inject({
    method: 'POST',
    url: '/v1/transcribe',
    payload: audio,
    headers: { 'content-type': 'audio/wav' },
  })

t.test('catalog model not installed: 503 naming the pull command', async (t) => {
  const app = await voskApp(t)
  const res = await transcribe(app)
  t.equal(res.statusCode, 503)
  t.same(res.json(), {
    error: `Speech engine unavailable: Vosk small US English 0.15: ${ID} is not installed (no folder models/${ID}). Fix: dictum models pull ${ID}`,
    code: 'ENGINE_UNAVAILABLE',
    engine: 'vosk',
    fix: `dictum models pull ${ID}`,
  })
  const engines = (await injectJson(app, 'GET', '/v1/engines')).body
  t.match(
    engines.items.find((e: { id: string }) => e.id === 'vosk'),
    {
      status: 'unavailable',
      active: true,
      fix: `dictum models pull ${ID}`,
      capabilities: { customWords: false, wordTimestamps: true, languages: ['en'] },
    },
  )
  t.equal((await injectJson(app, 'GET', '/v1/health')).status, 200, 'the app keeps serving')
})

t.test('incomplete folders: empty, or without am/final.mdl', async (t) => {
  const empty = await voskApp(t, {}, async (models) => {
    await mkdir(path.join(models, ID), { recursive: true })
  })
  const res = await transcribe(empty)
  t.equal(res.statusCode, 503)
  t.match(res.json().error, `${ID} is incomplete: am/final.mdl is missing or empty`)
  const partial = await voskApp(t, {}, (models) =>
    writeModel(
      path.join(models, ID),
      FILES.filter((f) => f !== 'am/final.mdl'),
    ),
  )
  const openai = await partial.inject({
    method: 'POST',
    url: '/v1/audio/transcriptions',
    ...(await multipart()),
  })
  t.equal(openai.statusCode, 503, 'the OpenAI route too')
  t.match(openai.json(), {
    error: {
      message: /am\/final\.mdl is missing or empty/,
      type: 'server_error',
      fix: `dictum models pull ${ID}`,
    },
  })
})

t.test(
  'a corrupt model reaches libvosk (in the engine process) and fails to load: 503, no crash',
  async (t) => {
    const app = await voskApp(t, {}, (models) => writeModel(path.join(models, ID), FILES))
    const res = await transcribe(app)
    t.equal(res.statusCode, 503)
    t.match(res.json(), {
      code: 'ENGINE_LOAD_FAILED',
      error: /^Speech engine failed to load: vosk: .*libvosk could not load vosk-model-small-en-us-0\.15\./,
      fix: `dictum models pull ${ID}`,
    })
    t.equal((await injectJson(app, 'GET', '/v1/health')).status, 200, 'the app keeps serving')
  },
)

t.test('modelDir: the user’s own folder is checked the same way', async (t) => {
  const dir = path.join(tempDir(t), 'my-model')
  await mkdir(dir)
  const app = await voskApp(t, { modelDir: dir, language: 'de' })
  const res = await transcribe(app)
  t.equal(res.statusCode, 503)
  t.match(
    res.json().error,
    'Vosk (my-model): the model in speech.engines.vosk.modelDir is incomplete: am/final.mdl is missing or empty',
  )
  const engines = (await injectJson(app, 'GET', '/v1/engines')).body
  t.match(engines.items.find((e: { id: string }) => e.id === 'vosk').capabilities, { languages: ['de'] })
})

t.test('a wrong libraryPath: 503 saying so', async (t) => {
  const app = await voskApp(t, { libraryPath: '/nonexistent/libvosk.so' })
  const res = await transcribe(app)
  t.equal(res.statusCode, 503)
  t.match(res.json().error, 'libvosk not found at /nonexistent/libvosk.so')
})

async function multipart() {
  const form = new FormData()
  form.append('file', new Blob([audio], { type: 'audio/wav' }), 'goforward.wav')
  form.append('model', 'whisper-1')
  const request = new Request('http://127.0.0.1/', { method: 'POST', body: form })
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type') as string },
  }
}
