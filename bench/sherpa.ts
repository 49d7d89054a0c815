/**
 * sherpa-onnx and VAD benchmarks: Silero VAD real-time factor on the 60 s recording; the fixture NeMo TDT
 * transducer decoding jfk.wav through sherpa-onnx-node directly and through the engine (rounds interleaved,
 * medians); with DICTUM_TEST_MODELS set, the real-time factor of every catalog model present there.
 * Run alone: `node --import tsx bench/sherpa.ts`.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Value } from '@sinclair/typebox/value'
import { SHERPA_ONNX_CATALOG } from '../engines/sherpa-onnx/catalog.ts'
import engine from '../engines/sherpa-onnx/index.ts'
import { resolveModel } from '../engines/sherpa-onnx/model-spec.ts'
import { loadSherpaOnnx } from '../engines/sherpa-onnx/native.ts'
import type { SherpaOnnxOptions } from '../engines/sherpa-onnx/options.ts'
import { recognizerConfig } from '../engines/sherpa-onnx/recognizer-config.ts'
import { deriveBpeVocab, readTokens } from '../engines/sherpa-onnx/tokens.ts'
import {
  audioFixturesDir,
  CLIPS,
  fixtureModels,
  fixtureModelsDir,
  readWav,
  silentLogger,
  vadModelPath,
} from '../test/engines/sherpa-onnx/fixtures.ts'
import { VadSegmenter } from '../vad/index.ts'
import { median, round } from './lib/load.ts'

const SR = 16000

function optionsOf(raw: Record<string, unknown>): SherpaOnnxOptions {
  return Value.Default(engine.optionsSchema, structuredClone(raw)) as SherpaOnnxOptions
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

async function benchVad(rounds: number): Promise<Record<string, number>> {
  const vad = await VadSegmenter.open(
    {
      enabled: true,
      model: null,
      threshold: 0.5,
      minSilenceSeconds: 0.5,
      minSpeechSeconds: 0.25,
      maxSegmentSeconds: null,
    },
    { modelsDir: tmpdir(), fallbackModel: vadModelPath },
  )
  const samples = await readWav(path.join(audioFixturesDir, 'extra/silero-vad-test-en-60s.wav'))
  const ms: number[] = []
  for (let i = 0; i < rounds; i++) {
    ms.push(
      await timed(async () => {
        for await (const _ of vad.segment(samples, { maxSegmentSeconds: 30 })) {
        }
      }),
    )
  }
  vad.close()
  return {
    'vad 60 s clip ms (median)': round(median(ms), 1),
    'vad real-time factor': round(median(ms) / 60_000, 5),
  }
}

/** jfk.wav through sherpa-onnx-node directly and through the engine, same model and settings. */
async function benchFixture(rounds: number): Promise<Record<string, number | string>> {
  const fixtures = await fixtureModels()
  if ('skip' in fixtures) return { 'fixture transducer': `skipped: ${fixtures.skip}` }
  const modelsDir = await fixtureModelsDir(fixtures.dir, await mkdtemp(path.join(tmpdir(), 'dictum-bench-')))
  const options = optionsOf({ model: 'parakeet-tdt-0.6b-v2', numThreads: 1 })
  const spec = await resolveModel(options, modelsDir)
  const bpe = path.join(modelsDir, 'bpe.vocab')
  await writeFile(bpe, deriveBpeVocab(await readTokens(path.join(spec.dir, 'tokens.txt'))))
  const direct = await loadSherpaOnnx().OfflineRecognizer.createAsync(
    recognizerConfig({ spec, options, bpeVocab: bpe, language: '' }),
  )
  const instance = await engine.create({ options, dataDir: modelsDir, modelsDir, logger: silentLogger })
  await instance.load()
  const samples = await readWav(path.join(audioFixturesDir, 'jfk.wav'))
  const times = { direct: [] as number[], engine: [] as number[] }
  for (let i = 0; i < rounds; i++) {
    times.direct.push(
      await timed(async () => {
        const stream = direct.createStream()
        stream.acceptWaveform({ sampleRate: SR, samples })
        await direct.decodeAsync(stream)
      }),
    )
    times.engine.push(await timed(() => instance.transcribe({ samples, customWords: [] })))
  }
  await instance.close()
  await rm(modelsDir, { recursive: true, force: true })
  const seconds = samples.length / SR
  return {
    'fixture transducer jfk.wav direct ms (median)': round(median(times.direct), 2),
    'fixture transducer jfk.wav engine ms (median)': round(median(times.engine), 2),
    'fixture engine / direct': round(median(times.engine) / median(times.direct), 3),
    'fixture direct real-time factor': round(median(times.direct) / 1000 / seconds, 5),
  }
}

/** Real-time factor of each catalog model present in DICTUM_TEST_MODELS over the shared clips. */
async function benchRealModels(): Promise<Record<string, number | string>> {
  const modelsDir = process.env.DICTUM_TEST_MODELS
  if (!modelsDir) return { 'real models': 'skipped: DICTUM_TEST_MODELS not set' }
  const clips = await Promise.all(CLIPS.map((clip) => readWav(path.join(audioFixturesDir, clip))))
  const audioSeconds = clips.reduce((sum, c) => sum + c.length, 0) / SR
  const figures: Record<string, number | string> = {}
  for (const entry of SHERPA_ONNX_CATALOG) {
    if (!existsSync(path.join(modelsDir, entry.id))) continue
    const instance = await engine.create({
      options: optionsOf({ model: entry.id }),
      dataDir: modelsDir,
      modelsDir,
      logger: silentLogger,
    })
    const loadMs = await timed(() => instance.load())
    const ms = await timed(async () => {
      for (const samples of clips) await instance.transcribe({ samples, customWords: [] })
    })
    await instance.close()
    figures[`${entry.id} load ms`] = round(loadMs, 0)
    figures[`${entry.id} real-time factor`] = round(ms / 1000 / audioSeconds, 4)
  }
  return Object.keys(figures).length > 0 ? figures : { 'real models': `none found in ${modelsDir}` }
}

export async function benchSherpa(rounds = 7): Promise<Record<string, number | string>> {
  return { ...(await benchVad(rounds)), ...(await benchFixture(rounds * 3)), ...(await benchRealModels()) }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [key, value] of Object.entries(await benchSherpa())) process.stdout.write(`${key}: ${value}\n`)
}
