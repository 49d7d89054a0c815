/**
 * Broken and missing models give clear catalogue errors, never a crash: files missing, empty, truncated,
 * without metadata, with a tokens.txt that does not match, with a graph the runtime cannot parse, with a
 * malformed bpe.vocab. Loads that reach native code run in a child process, so a crash would show as a
 * failed exit instead of killing the test runner.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cp, readFile, rm, truncate, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { Value } from '@sinclair/typebox/value'
import t, { type Test } from 'tap'
import engine from '../../../engines/sherpa-onnx/index.ts'
import type { SherpaOnnxOptions } from '../../../engines/sherpa-onnx/options.ts'
import { fixtureModels, repoRoot, silentLogger } from './fixtures.ts'

const run = promisify(execFile)
const CHILD = path.join(repoRoot, 'test/engines/sherpa-onnx/load-in-child.ts')

/** Top-level protobuf fields of an ONNX file: [field number, wire type, start, end of the whole field]. */
function topLevelFields(bytes: Buffer): { field: number; bodyStart: number; end: number; start: number }[] {
  const fields = []
  let at = 0
  const varint = () => {
    let value = 0
    let scale = 1
    for (;;) {
      const byte = bytes[at++]!
      value += (byte & 0x7f) * scale
      if ((byte & 0x80) === 0) return value
      scale *= 128
    }
  }
  while (at < bytes.length) {
    const start = at
    const tag = varint()
    if ((tag & 7) === 0) {
      varint()
      fields.push({ field: tag >>> 3, bodyStart: at, end: at, start })
    } else {
      const length = varint()
      fields.push({ field: tag >>> 3, bodyStart: at, end: at + length, start })
      at += length
    }
  }
  return fields
}

function withoutMetadata(bytes: Buffer): Buffer {
  return Buffer.concat(
    topLevelFields(bytes)
      .filter((f) => f.field !== 14)
      .map((f) => bytes.subarray(f.start, f.end)),
  )
}

function withGarbageGraph(bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes)
  const graph = topLevelFields(bytes).find((f) => f.field === 7)!
  randomBytes(graph.end - graph.bodyStart).copy(copy, graph.bodyStart)
  return copy
}

const fixtures = await fixtureModels()

function optionsOf(raw: Record<string, unknown>): SherpaOnnxOptions {
  return Value.Default(engine.optionsSchema, structuredClone(raw)) as SherpaOnnxOptions
}

/** A models dir with the NeMo fixture installed as `id`, after `damage` ran on its folder. */
async function damaged(t: Test, id: string, damage: (dir: string) => Promise<void>): Promise<string> {
  if ('skip' in fixtures) throw new Error('unreachable')
  const modelsDir = t.testdir()
  const dir = path.join(modelsDir, id)
  await cp(path.join(fixtures.dir, 'nemo-tdt'), dir, { recursive: true })
  await damage(dir)
  return modelsDir
}

async function loadInProcess(modelsDir: string, raw: Record<string, unknown>) {
  const instance = await engine.create({
    options: optionsOf(raw),
    dataDir: modelsDir,
    modelsDir,
    logger: silentLogger,
  })
  try {
    await instance.load()
  } finally {
    await instance.close()
  }
}

async function loadInChild(modelsDir: string, raw: Record<string, unknown>) {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', CHILD, JSON.stringify({ options: raw, modelsDir })],
    {
      cwd: repoRoot,
    },
  )
  return JSON.parse(stdout) as { ok: boolean; code?: string; message?: string; text?: string }
}

const PARAKEET = { model: 'parakeet-tdt-0.6b-v2' }

if ('skip' in fixtures) {
  t.skip(fixtures.skip, () => {})
} else {
  t.test('a model that is not installed', async (t) => {
    await t.rejects(loadInProcess(t.testdir(), PARAKEET), {
      code: 'MODEL_NOT_INSTALLED',
      message: /parakeet-tdt-0\.6b-v2\. Fix: dictum models pull parakeet-tdt-0\.6b-v2/,
      extra: { fix: 'dictum models pull parakeet-tdt-0.6b-v2' },
    })
  })

  const cases: [string, (dir: string) => Promise<void>, RegExp][] = [
    ['a missing file', (dir) => rm(path.join(dir, 'joiner.int8.onnx')), /joiner\.int8\.onnx is missing/],
    [
      'an empty file',
      (dir) => truncate(path.join(dir, 'decoder.int8.onnx'), 0),
      /decoder\.int8\.onnx is empty/,
    ],
    [
      'a truncated encoder',
      (dir) => truncate(path.join(dir, 'encoder.int8.onnx'), 5000),
      /encoder\.int8\.onnx: the file is truncated/,
    ],
    [
      'an encoder without metadata',
      async (dir) => {
        const file = path.join(dir, 'encoder.int8.onnx')
        await writeFile(file, withoutMetadata(await readFile(file)))
      },
      /lacks metadata vocab_size, subsampling_factor, pred_rnn_layers, pred_hidden/,
    ],
    [
      'a tokens.txt that does not match the model',
      async (dir) => {
        const file = path.join(dir, 'tokens.txt')
        const lines = (await readFile(file, 'utf8')).trim().split('\n')
        await writeFile(
          file,
          `${lines
            .slice(1)
            .map((l, i) => `${l.split(' ')[0]} ${i}`)
            .join('\n')}\n`,
        )
      },
      /tokens\.txt has \d+ tokens, the model \d+ \+ blank/,
    ],
    [
      'a tokens.txt that is not "symbol id"',
      (dir) => writeFile(path.join(dir, 'tokens.txt'), 'abc\n'),
      /line 1 is not/,
    ],
  ]
  for (const [name, damage, message] of cases) {
    t.test(`${name}: MODEL_INVALID with the fix`, async (t) => {
      const modelsDir = await damaged(t, 'parakeet-tdt-0.6b-v2', damage)
      await t.rejects(loadInProcess(modelsDir, PARAKEET), {
        code: 'MODEL_INVALID',
        message,
        extra: { fix: 'dictum models pull parakeet-tdt-0.6b-v2' },
      })
      const probe = await engine.probe!({
        options: optionsOf(PARAKEET),
        dataDir: modelsDir,
        modelsDir,
        logger: silentLogger,
      })
      if (name === 'a missing file' || name === 'an empty file') {
        t.match(
          probe,
          { available: false, fix: 'dictum models pull parakeet-tdt-0.6b-v2' },
          'probe sees it too',
        )
      }
    })
  }

  t.test('catalog file sizes are checked', async (t) => {
    const modelsDir = await damaged(t, 'parakeet-tdt-110m-en', async () => {})
    await t.rejects(loadInProcess(modelsDir, { model: 'parakeet-tdt-110m-en' }), {
      code: 'MODEL_INVALID',
      message: /encoder\.int8\.onnx has \d+ bytes, expected 131113202/,
    })
  })

  t.test('a graph the runtime cannot parse: rejected load, the process survives', async (t) => {
    const modelsDir = await damaged(t, 'parakeet-tdt-0.6b-v2', async (dir) => {
      const file = path.join(dir, 'joiner.int8.onnx')
      await writeFile(file, withGarbageGraph(await readFile(file)))
    })
    const result = await loadInChild(modelsDir, PARAKEET)
    t.match(result, { ok: false, code: 'MODEL_INVALID', message: /the runtime rejected the model/ })
    t.notMatch(result.message, modelsDir, 'no internal path in the message')
  })

  t.test('a malformed bpe.vocab in the folder is not used (it would exit the process)', async (t) => {
    const modelsDir = await damaged(t, 'parakeet-tdt-0.6b-v2', (dir) =>
      writeFile(path.join(dir, 'bpe.vocab'), '\u2581the -1.0\n\nbroken line here\n'),
    )
    const result = await loadInChild(modelsDir, PARAKEET)
    t.match(result, { ok: true })
  })

  t.test('a custom folder without family is unavailable, with what to set', async (t) => {
    const options = optionsOf({ modelDir: path.join(t.testdir(), 'x') })
    const probe = await engine.probe!({ options, dataDir: '/', modelsDir: '/', logger: silentLogger })
    t.match(probe, { available: false, reason: /family is required with modelDir/ })
    await t.rejects(loadInProcess('/', { modelDir: '/nowhere' }), { code: 'ENGINE_LOAD_FAILED' })
  })
}
