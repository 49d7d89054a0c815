import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { OnnxFileError, readOnnxFile } from '../../vad/onnx-file.ts'
import { audioFixturesDir, fixtureModels, vadModelPath } from '../engines/sherpa-onnx/fixtures.ts'

t.test('a real model: structure and metadata', async (t) => {
  const info = await readOnnxFile(vadModelPath)
  t.ok(info.irVersion > 0)
  t.ok(info.graphBytes > 2_000_000, 'the graph is nearly the whole file')
  const fixtures = await fixtureModels()
  if ('skip' in fixtures) return
  const encoder = await readOnnxFile(path.join(fixtures.dir, 'nemo-tdt/encoder.int8.onnx'))
  t.match(encoder.metadata, { vocab_size: /^\d+$/, pred_rnn_layers: '2', model_type: 'EncDecRNNTBPEModel' })
})

t.test('broken files are reported, never parsed further', async (t) => {
  const dir = t.testdir()
  const real = await readFile(vadModelPath)
  const cases: [string, Buffer, RegExp][] = [
    ['empty', Buffer.alloc(0), /empty/],
    ['truncated', real.subarray(0, 100_000), /truncated/],
    ['one byte short', real.subarray(0, real.length - 1), /truncated/],
    // Random bytes can read as any broken structure, a metadata entry among them: each is reported.
    ['garbage', randomBytes(4096), /not an ONNX model|truncated|malformed metadata entry/],
    [
      'a WAV file',
      await readFile(path.join(audioFixturesDir, 'cards-001.wav')),
      /not an ONNX model|truncated|malformed metadata entry/,
    ],
    ['no graph', Buffer.from([0x08, 0x07]), /no graph/],
  ]
  for (const [name, bytes, message] of cases) {
    const file = path.join(dir, `${name}.onnx`)
    await writeFile(file, bytes)
    await t.rejects(readOnnxFile(file), OnnxFileError, name)
    await t.rejects(readOnnxFile(file), { message }, name)
  }
  await t.rejects(readOnnxFile(path.join(dir, 'missing.onnx')), { code: 'ENOENT' })
})
