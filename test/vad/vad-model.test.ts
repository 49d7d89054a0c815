/**
 * Choosing and vetting the VAD model: config, then the catalog's installed models, then the fallback;
 * missing, truncated and wrong files are refused before the native VAD in this process sees them.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { knownVadDigests, resolveVadModel, verifyVadModel } from '../../vad/vad-model.ts'
import { fixtureModels, vadModelPath } from '../engines/sherpa-onnx/fixtures.ts'

t.test('resolution order: config, installed catalog model, fallback, else MODEL_NOT_INSTALLED', async (t) => {
  const modelsDir = t.testdir()
  await t.rejects(resolveVadModel({ configured: null, modelsDir }), {
    code: 'MODEL_NOT_INSTALLED',
    extra: { fix: 'dictum models pull silero-vad' },
  })
  t.same(await resolveVadModel({ configured: null, modelsDir, fallback: vadModelPath }), {
    file: vadModelPath,
    catalogId: null,
  })
  await mkdir(path.join(modelsDir, 'silero-vad-v6.2'))
  await copyFile(vadModelPath, path.join(modelsDir, 'silero-vad-v6.2/silero_vad.onnx'))
  t.same(await resolveVadModel({ configured: null, modelsDir, fallback: '/elsewhere.onnx' }), {
    file: path.join(modelsDir, 'silero-vad-v6.2/silero_vad.onnx'),
    catalogId: 'silero-vad-v6.2',
  })
  t.same(await resolveVadModel({ configured: 'relative.onnx', modelsDir }), {
    file: path.resolve('relative.onnx'),
    catalogId: null,
  })
})

t.test('the shared Silero file carries a digest the catalog knows', async (t) => {
  t.ok(knownVadDigests().has('1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3'))
  await verifyVadModel({ file: vadModelPath, catalogId: null })
})

t.test('missing, empty and truncated files are MODEL_INVALID (a truncated one would abort)', async (t) => {
  const dir = t.testdir()
  const real = await readFile(vadModelPath)
  await writeFile(path.join(dir, 'empty.onnx'), '')
  await writeFile(path.join(dir, 'cut.onnx'), real.subarray(0, real.length / 2))
  for (const [name, message] of [
    ['missing.onnx', /the file is missing/],
    ['empty.onnx', /empty/],
    ['cut.onnx', /truncated/],
  ] as const) {
    await t.rejects(verifyVadModel({ file: path.join(dir, name), catalogId: null }), {
      code: 'MODEL_INVALID',
      message,
    })
  }
  await t.rejects(verifyVadModel({ file: path.join(dir, 'missing.onnx'), catalogId: 'silero-vad' }), {
    code: 'MODEL_INVALID',
    extra: { fix: 'dictum models pull silero-vad' },
  })
})

t.test(
  'an unknown file is test-loaded in a child: a valid other model is refused, this process survives',
  async (t) => {
    const fixtures = await fixtureModels()
    if ('skip' in fixtures) return t.skip(fixtures.skip, () => {})
    await t.rejects(
      verifyVadModel({ file: path.join(fixtures.dir, 'nemo-tdt/encoder.int8.onnx'), catalogId: null }),
      {
        code: 'MODEL_INVALID',
        message: /the runtime could not load it/,
      },
    )
  },
)

t.test('an unknown but working Silero file passes the trial load', async (t) => {
  const file = path.join(t.testdir(), 'silero-with-extra-metadata.onnx')
  // an extra metadata_props entry (field 14) changes the digest, not the model
  const entry = Buffer.concat([
    Buffer.from([0x0a, 0x01]),
    Buffer.from('k'),
    Buffer.from([0x12, 0x01]),
    Buffer.from('v'),
  ])
  await writeFile(
    file,
    Buffer.concat([await readFile(vadModelPath), Buffer.from([0x72, entry.length]), entry]),
  )
  await verifyVadModel({ file, catalogId: null })
})
