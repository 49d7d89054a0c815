/**
 * Loads the sherpa-onnx engine in this (child) process and transcribes one second of a tone, then prints
 * `{"ok":true}` or `{"ok":false,"code":…,"message":…}`. Tests run broken models through it: a native crash
 * shows as a non-zero exit instead of killing the test runner.
 * Usage: node --import tsx load-in-child.ts '{"options":{…},"modelsDir":"…"}'
 */
import { Value } from '@sinclair/typebox/value'
import engine from '../../../engines/sherpa-onnx/index.ts'
import { silentLogger } from './fixtures.ts'

const input = JSON.parse(process.argv[2] ?? '{}') as { options: unknown; modelsDir: string }
const options = Value.Default(engine.optionsSchema, structuredClone(input.options)) as never
const instance = await engine.create({
  options,
  dataDir: input.modelsDir,
  modelsDir: input.modelsDir,
  logger: silentLogger,
})
try {
  await instance.load()
  const samples = Float32Array.from({ length: 16000 }, (_, i) => 0.3 * Math.sin(i / 5))
  const result = await instance.transcribe({
    samples,
    customWords: [{ text: 'zebra', weight: null, aliases: [] }],
  })
  process.stdout.write(JSON.stringify({ ok: true, text: result.text }))
} catch (error) {
  const { code, message } = error as { code?: string; message: string }
  process.stdout.write(JSON.stringify({ ok: false, code, message }))
} finally {
  await instance.close()
}
