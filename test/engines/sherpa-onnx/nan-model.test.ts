/**
 * A sherpa-onnx model whose weights are corrupt but well-formed (issue 16 item 21): it loads, its scores come
 * out as NaN, and sherpa-onnx prints them as bare `nan` in its JSON result. The request fails with
 * MODEL_INVALID naming the model and the fix (not `… is not valid JSON`), and the engine shows `failed`.
 * The fixture is the generated NeMo TDT model with every float initializer of its joiner set to NaN.
 */
import { spawnSync } from 'node:child_process'
import { cp, mkdir } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { hasInvalidScores, parseResult } from '../../../engines/sherpa-onnx/result.ts'
import { build, injectJson, tempDir } from '../../helpers/build.ts'
import { audioFixturesDir, fixtureModels } from './fixtures.ts'

const ID = 'parakeet-tdt-0.6b-v2'

t.test('the result parser tolerates nan and inf outside strings only', async (t) => {
  const result = parseResult(
    '{"text": "nan inf -nan", "tokens": ["nan"], "ys_log_probs": [nan, -nan, inf, -inf, -0.25], ' +
      '"timestamps": [NaN, 0.5, Infinity]}',
  )
  t.equal(result.text, 'nan inf -nan', 'a transcript saying "nan" is kept')
  t.same(result.tokens, ['nan'])
  t.same(result.ys_log_probs, [null, null, Infinity, -Infinity, -0.25])
  t.same(result.timestamps, [null, 0.5, Infinity])
  t.equal(hasInvalidScores(result), true)
  t.equal(hasInvalidScores(parseResult('{"text": "a", "ys_log_probs": [-0.1, -2]}')), false)
  t.equal(hasInvalidScores(parseResult('{"text": "", "ys_log_probs": []}')), false)
  t.equal(parseResult('{"text": "say \\"nan\\" now"}').text, 'say "nan" now', 'escaped quotes')
})

const fixtures = await fixtureModels()

t.test('a model producing NaN: 503 MODEL_INVALID with the fix, and the engine shows failed', async (t) => {
  if ('skip' in fixtures) return t.pass('fixture models unavailable', { skip: fixtures.skip })
  const dataDir = tempDir(t)
  const dir = path.join(dataDir, 'models', ID)
  await mkdir(path.dirname(dir), { recursive: true })
  await cp(path.join(fixtures.dir, 'nemo-tdt'), dir, { recursive: true })
  const nanified = spawnSync(
    '/usr/bin/python3',
    [
      '-c',
      `import sys, onnx, numpy as np
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
for init in m.graph.initializer:
    a = numpy_helper.to_array(init)
    if a.dtype.kind == 'f':
        init.CopyFrom(numpy_helper.from_array(np.full(a.shape, np.nan, dtype=a.dtype), init.name))
onnx.save(m, sys.argv[1])`,
      path.join(dir, 'joiner.int8.onnx'),
    ],
    { encoding: 'utf8' },
  )
  t.equal(nanified.status, 0, nanified.stderr)

  const app = await build(t, {
    dataDir,
    vad: { enabled: false },
    speech: { engine: 'sherpa-onnx', engines: { 'sherpa-onnx': { model: ID, numThreads: 1 } } },
  })
  const message =
    `Model is missing files or corrupt: ${ID}: the model produces invalid numbers (NaN), so its weights ` +
    `are probably corrupt: run \`dictum models verify ${ID}\`, or pull it again ` +
    `(\`dictum models pull ${ID} --force\`).`
  for (const attempt of ['first', 'second']) {
    const res = await injectJson(app, 'POST', '/v1/transcribe', {
      path: path.join(audioFixturesDir, 'jfk.wav'),
    })
    t.equal(res.status, 503, `${attempt} request`)
    t.same(res.body, { error: message, code: 'MODEL_INVALID', fix: `dictum models pull ${ID} --force` })
  }
  const engines = await injectJson(app, 'GET', '/v1/engines')
  t.match(
    engines.body.items.find((e: { id: string }) => e.id === 'sherpa-onnx'),
    {
      status: 'failed',
      reason: message,
    },
  )
})
