/**
 * The plugin SDK as a third party uses it: `examples/engine-plugin` is a package of its own that imports only
 * `dictum-local/plugin` and `dictum-local/testing`. It passes the conformance suite (its own test, run as its
 * author runs it), and `dictum serve` loads it through config `plugins` and transcribes with it over HTTP.
 *
 * `dictum-local` resolves to this checkout through a link in the example's node_modules (what
 * `npm install` of its `file:../..` dependency makes), and to the TypeScript sources through the package's
 * `dictum-source` export condition (so no build is needed; an installed dictum resolves to dist/).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { repoRoot } from '../helpers/fixtures.ts'
import { spawnServe } from '../helpers/serve.ts'
import { encodeWav } from '../helpers/wav.ts'

const EXAMPLE = path.join(repoRoot, 'examples/engine-plugin')
const LINK = path.join(EXAMPLE, 'node_modules/dictum-local')
const SOURCE_CONDITION = '--conditions=dictum-source'

if (!existsSync(LINK)) {
  mkdirSync(path.dirname(LINK), { recursive: true })
  symlinkSync(repoRoot, LINK, 'dir')
}

t.test("the example's own test: the engine conformance suite through dictum-local/testing", async (t) => {
  const child = spawn(process.execPath, [SOURCE_CONDITION, '--import', 'tsx', 'test/engine.test.js'], {
    cwd: EXAMPLE,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    output += text
  })
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    output += text
  })
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  t.equal(code, 0, code === 0 ? "the example's test passes" : output)
  t.match(output, /example-energy: engine contract/, 'the suite ran')
  t.notMatch(output, /^not ok/m, 'no check failed')
})

t.test('dictum serve loads the example through config plugins and transcribes with it', async (t) => {
  // The example imports dictum-local, which resolves to the sources only with this condition.
  const { port } = await spawnServe(
    t,
    {
      plugins: [EXAMPLE],
      speech: { engine: 'example-energy' },
      vad: { enabled: false },
      log: { level: 'silent' },
    },
    { env: { NODE_OPTIONS: SOURCE_CONDITION }, stdio: 'ignore' },
  )
  const base = `http://127.0.0.1:${port}`

  const engines = (await (await fetch(`${base}/v1/engines`)).json()) as {
    items: { id: string; active: boolean; displayName: string }[]
  }
  const example = engines.items.find((e) => e.id === 'example-energy')
  t.ok(example?.active, 'the example engine is listed and active')
  t.equal(example?.displayName, 'Example: loud parts')

  const tone = new Float32Array(16000 * 3)
  for (const from of [0.5, 2]) {
    for (let i = 0; i < 8000; i++) tone[from * 16000 + i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / 16000)
  }
  const response = await fetch(`${base}/v1/transcribe`, {
    method: 'POST',
    headers: { 'content-type': 'audio/wav' },
    body: encodeWav([tone], { sampleRate: 16000, format: 's16' }),
  })
  t.equal(response.status, 200)
  const result = (await response.json()) as { text: string; provider: string }
  t.equal(result.text, 'loud part 1, loud part 2')
  t.equal(result.provider, 'Example: loud parts')
})
